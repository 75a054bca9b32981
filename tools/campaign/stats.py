"""The analysis: paired ratios per block, their geometric mean, a percentile bootstrap over
blocks and leave-one-block-out estimates (docs/campaigns/README.md, "Method").

Per process the value is the median of its repeats; per block the ratio is the arm's value
over the reference arm's in that block; the estimate is the geometric mean of the block
ratios. The interval resamples whole blocks with replacement `resamples` times from a
seeded generator and takes the percentiles of the resampled geometric means.
"""
import math

import numpy as np


def median(values):
    values = [v for v in values if v is not None and not math.isnan(v)]
    if not values:
        return float("nan")
    return float(np.median(np.asarray(values, dtype=float)))


def geometric_mean(ratios):
    r = np.asarray(ratios, dtype=float)
    if r.size == 0 or np.any(r <= 0):
        return float("nan")
    return float(np.exp(np.mean(np.log(r))))


def bootstrap_interval(ratios, resamples=20000, confidence=0.95, seed=1):
    """(low, high): the percentile bootstrap interval of the geometric mean of `ratios`,
    resampling them with replacement `resamples` times (numpy's PCG64 from `seed`)."""
    r = np.asarray(ratios, dtype=float)
    if r.size == 0 or np.any(r <= 0):
        return float("nan"), float("nan")
    logs = np.log(r)
    rng = np.random.Generator(np.random.PCG64(seed))
    idx = rng.integers(0, r.size, size=(resamples, r.size))
    means = np.exp(logs[idx].mean(axis=1))
    alpha = (1 - confidence) / 2
    low, high = np.quantile(means, [alpha, 1 - alpha])
    return float(low), float(high)


def leave_one_out(ratios):
    """The geometric mean of the ratios without each one in turn."""
    r = list(ratios)
    if len(r) < 2:
        return []
    return [geometric_mean(r[:i] + r[i + 1:]) for i in range(len(r))]


def block_ratios(values, reference, arm):
    """{block: value[arm] / value[reference]} over the blocks where both have a value.
    `values` maps (block, arm) to the process's median."""
    out = {}
    for (block, a), v in values.items():
        if a != arm:
            continue
        ref = values.get((block, reference))
        if ref is None or v is None or math.isnan(v) or math.isnan(ref) or ref <= 0 or v <= 0:
            continue
        out[block] = v / ref
    return dict(sorted(out.items()))


def summarize(values, reference, arms, resamples, confidence, seed):
    """Per arm other than the reference: its block ratios, estimate, interval and
    leave-one-block-out range; and for every arm its value as the median over blocks."""
    result = {"absolute": {}, "ratios": {}}
    for arm in arms:
        result["absolute"][arm] = median([v for (b, a), v in values.items() if a == arm])
    for k, arm in enumerate(a for a in arms if a != reference):
        ratios = block_ratios(values, reference, arm)
        r = list(ratios.values())
        # One seed per arm, derived from the plan's, so adding an arm does not move the others.
        arm_seed = [int(seed), sum(ord(c) for c in arm), len(arm)]
        low, high = bootstrap_interval(r, resamples, confidence, np.random.SeedSequence(arm_seed))
        loo = leave_one_out(r)
        result["ratios"][arm] = {
            "blocks": ratios,
            "estimate": geometric_mean(r),
            "low": low,
            "high": high,
            "leave_one_out_min": min(loo) if loo else float("nan"),
            "leave_one_out_max": max(loo) if loo else float("nan"),
            "leave_one_out": loo,
        }
    return result
