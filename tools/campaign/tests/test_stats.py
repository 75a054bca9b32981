"""The statistics against known values."""
import math

import numpy as np
import pytest

import stats


def test_median_of_repeats():
    assert stats.median([3.0, 1.0, 2.0]) == 2.0
    assert stats.median([4.0, 1.0, 3.0, 2.0]) == 2.5
    assert math.isnan(stats.median([]))


def test_geometric_mean():
    assert stats.geometric_mean([2.0, 8.0]) == pytest.approx(4.0)
    assert stats.geometric_mean([1.0, 1.0, 1.0]) == pytest.approx(1.0)
    assert stats.geometric_mean([0.5, 2.0]) == pytest.approx(1.0)
    assert stats.geometric_mean([1.0, 10.0, 100.0]) == pytest.approx(10.0)
    assert math.isnan(stats.geometric_mean([]))
    assert math.isnan(stats.geometric_mean([1.0, 0.0]))


def test_bootstrap_of_a_constant_sample_is_that_constant():
    low, high = stats.bootstrap_interval([1.5] * 10, resamples=1000, seed=1)
    assert low == pytest.approx(1.5) and high == pytest.approx(1.5)


def reference_bootstrap(ratios, resamples, confidence, seed):
    """The same bootstrap written out plainly: resample indices from the same generator, a
    geometric mean per resample, percentiles by linear interpolation between order
    statistics (numpy's default)."""
    rng = np.random.Generator(np.random.PCG64(seed))
    idx = rng.integers(0, len(ratios), size=(resamples, len(ratios)))
    means = sorted(math.exp(sum(math.log(ratios[j]) for j in row) / len(row)) for row in idx)

    def percentile(q):
        pos = q * (len(means) - 1)
        lo = math.floor(pos)
        hi = min(lo + 1, len(means) - 1)
        return means[lo] + (means[hi] - means[lo]) * (pos - lo)

    alpha = (1 - confidence) / 2
    return percentile(alpha), percentile(1 - alpha)


def test_bootstrap_of_a_fixed_sample_with_a_fixed_seed():
    sample = [0.91, 1.02, 0.97, 1.10, 0.88, 1.05, 0.99, 0.93]
    low, high = stats.bootstrap_interval(sample, resamples=20000, confidence=0.95, seed=7)
    ref_low, ref_high = reference_bootstrap(sample, 20000, 0.95, 7)
    assert low == pytest.approx(ref_low, rel=1e-12)
    assert high == pytest.approx(ref_high, rel=1e-12)
    # The same seed gives the same interval; the interval holds the estimate and lies within
    # the sample's range.
    assert (low, high) == stats.bootstrap_interval(sample, 20000, 0.95, 7)
    estimate = stats.geometric_mean(sample)
    assert min(sample) < low < estimate < high < max(sample)
    # Known value: the eighth root of the sample's product.
    assert estimate == pytest.approx(math.prod(sample) ** (1 / 8), rel=1e-12)
    assert estimate == pytest.approx(0.978813, abs=1e-6)
    # A wider confidence gives a wider interval.
    wide = stats.bootstrap_interval(sample, 20000, 0.99, 7)
    assert wide[0] <= low and wide[1] >= high


def test_leave_one_out():
    assert stats.leave_one_out([1.0, 2.0, 4.0]) == pytest.approx(
        [math.sqrt(8.0), 2.0, math.sqrt(2.0)])
    assert stats.leave_one_out([3.0]) == []


def test_block_ratios_pair_within_blocks():
    values = {(1, "ref"): 100.0, (1, "x"): 200.0, (2, "ref"): 50.0, (2, "x"): 150.0,
              (3, "ref"): 10.0}  # block 3 has no x: left out
    assert stats.block_ratios(values, "ref", "x") == {1: 2.0, 2: 3.0}


def test_summarize():
    values = {}
    for block, ref in enumerate([100.0, 120.0, 90.0, 110.0], start=1):
        values[(block, "ref")] = ref
        values[(block, "twice")] = 2 * ref
        values[(block, "ref~aa")] = ref
    s = stats.summarize(values, "ref", ["ref", "twice", "ref~aa"], 2000, 0.95, 3)
    assert s["absolute"]["ref"] == pytest.approx(105.0)
    assert s["absolute"]["twice"] == pytest.approx(210.0)
    r = s["ratios"]["twice"]
    assert r["estimate"] == pytest.approx(2.0)
    assert r["low"] == pytest.approx(2.0) and r["high"] == pytest.approx(2.0)
    assert r["leave_one_out"] == pytest.approx([2.0] * 4)
    assert s["ratios"]["ref~aa"]["estimate"] == pytest.approx(1.0)
    assert "ref" not in s["ratios"]
