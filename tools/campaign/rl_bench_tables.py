#!/usr/bin/env python3
"""Markdown tables from the JSON output of rlbench, indexfetch and planskip
(--benchmark_out=FILE).

  tools/campaign/rl_bench_tables.py rlbench out.json      # one row per benchmark
  tools/campaign/rl_bench_tables.py indexfetch out.json   # remote / scan-and-fetch per case and arm
  tools/campaign/rl_bench_tables.py planskip out.json     # the skip cases, then the targets

Time is the median over repetitions of real time per operation; counters are medians too.
For indexfetch the ratio is the ratio of the two methods' medians, and `paired range` the
smallest and largest ratio of the repetitions taken in the same round (with
--benchmark_enable_random_interleaving, repetition i of every benchmark runs in round i).
`CPU remote / scan` is the ratio of the benchmark thread's CPU time: without added delay
the engine runs on that thread, so it is less sensitive than wall time to other load on the
machine; with delay it leaves out the waiting, so read it for the no-delay arm only.
"""
import json
import statistics
import sys
from collections import defaultdict

REFERENCE = {  # reference remote / scan-and-fetch ratios (docs/benchmarks.md, "indexfetch")
    ("small", "rows1000", "forward", "rl"): "0.34 (C1)",
    ("split", "rows1000", "forward", "rl"): "1.15 (C1)",
    ("small", "rows1000", "forward", "rl_delay250"): "0.224 (C3)",
    ("split", "rows1000", "forward", "rl_delay250"): "1.053 (C3)",
    ("small", "limit1", "forward", "rl"): "0.71-0.87 (C1, 1- and 10-row cases)",
    ("small", "rows10", "forward", "rl"): "0.71-0.87 (C1, 1- and 10-row cases)",
    ("split", "limit1", "forward", "rl"): "0.71-0.87 (C1, 1- and 10-row cases)",
    ("split", "rows10", "forward", "rl"): "0.71-0.87 (C1, 1- and 10-row cases)",
}


def load(path):
    with open(path) as f:
        data = json.load(f)
    runs = defaultdict(list)  # name -> [benchmark entries], one per repetition
    for b in data["benchmarks"]:
        if b.get("run_type") != "iteration" or b.get("error_occurred"):
            continue
        runs[b["run_name"]].append(b)
    return data.get("context", {}), runs


def median(entries, key):
    values = [e[key] for e in entries if key in e]
    return statistics.median(values) if values else float("nan")


def short(run_name):
    return run_name.replace("/real_time", "").replace("/iterations:1000", "")


def fmt(x, digits=0):
    if x != x:
        return "-"
    if digits == 0:
        return f"{x:,.0f}"
    return f"{x:,.{digits}f}"


def rlbench(runs):
    print("| benchmark | reps | ns/op (median) | p50 ns | p99 ns | allocs/op | allocs in the call | "
          "bytes/op | round trips/op |")
    print("|---|---|---|---|---|---|---|---|---|")
    order = sorted(runs, key=lambda n: (runs[n][0].get("family_index", 0),
                                        runs[n][0].get("per_family_instance_index", 0)))
    for name in order:
        entries = runs[name]
        print(f"| {short(name)} | {len(entries)} | {fmt(median(entries, 'real_time'))} | "
              f"{fmt(median(entries, 'p50_ns'))} | {fmt(median(entries, 'p99_ns'))} | "
              f"{fmt(median(entries, 'allocs'), 1)} | {fmt(median(entries, 'allocs_call'), 1)} | "
              f"{fmt(median(entries, 'bytes'))} | {fmt(median(entries, 'round_trips'), 1)} |")


def indexfetch(runs):
    by_case = defaultdict(dict)
    for name, entries in runs.items():
        size, case, direction, method, arm = short(name).split("/")
        by_case[(size, case, direction, arm)][method] = entries
    print("| arm | case | scan ns | remote ns | remote / scan | paired range | CPU remote / scan | "
          "reference | scan allocs | remote allocs | scan round trips | remote round trips |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for key in sorted(by_case, key=lambda k: (k[3], k[0], ["limit1", "rows10", "rows1000"].index(k[1]), k[2])):
        size, case, direction, arm = key
        methods = by_case[key]
        scan = methods.get("SCAN_AND_FETCH")
        remote = methods.get("USE_REMOTE_FETCH")
        if not scan or not remote:
            continue
        s, r = median(scan, "real_time"), median(remote, "real_time")
        paired = {}
        for e in scan:
            paired.setdefault(e.get("repetition_index", 0), [None, None])[0] = e["real_time"]
        for e in remote:
            paired.setdefault(e.get("repetition_index", 0), [None, None])[1] = e["real_time"]
        ratios = [b / a for a, b in paired.values() if a and b]
        span = f"{min(ratios):.2f}..{max(ratios):.2f}" if ratios else "-"
        cpu = median(remote, "cpu_time") / median(scan, "cpu_time")
        cpu_text = f"{cpu:.2f}" if arm == "rl" else "-"  # with delay the waits leave CPU out
        print(f"| {arm} | {size}/{case}/{direction} | {fmt(s)} | {fmt(r)} | {r / s:.2f} | {span} | "
              f"{cpu_text} | {REFERENCE.get(key, '')} | {fmt(median(scan, 'allocs'))} | "
              f"{fmt(median(remote, 'allocs'))} | {fmt(median(scan, 'round_trips'))} | "
              f"{fmt(median(remote, 'round_trips'))} |")


    print()
    print("| arm | case | ADAPTIVE chose | ADAPTIVE / better fixed (wall) | CPU ADAPTIVE / better "
          "fixed | remote / scan (wall) |")
    print("|---|---|---|---|---|---|")
    for key in sorted(by_case, key=lambda k: (k[3], k[0], ["limit1", "rows10", "rows1000"].index(k[1]), k[2])):
        size, case, direction, arm = key
        methods = by_case[key]
        scan, remote = methods.get("SCAN_AND_FETCH"), methods.get("USE_REMOTE_FETCH")
        adaptive = methods.get("ADAPTIVE")
        if not scan or not remote or not adaptive:
            continue
        s, r, a = (median(m, "real_time") for m in (scan, remote, adaptive))
        cs, cr, ca = (median(m, "cpu_time") for m in (scan, remote, adaptive))
        chose = "remote" if median(adaptive, "chose_remote") >= 0.5 else "scan"
        cpu_text = f"{ca / min(cs, cr):.2f}" if arm == "rl" else "-"
        print(f"| {arm} | {size}/{case}/{direction} | {chose} | {a / min(s, r):.2f} | {cpu_text} | "
              f"{r / s:.2f} |")


def paired_ratios(base, other):
    """Ratios other / base of the repetitions run in the same round."""
    paired = {}
    for e in base:
        paired.setdefault(e.get("repetition_index", 0), [None, None])[0] = e["real_time"]
    for e in other:
        paired.setdefault(e.get("repetition_index", 0), [None, None])[1] = e["real_time"]
    return [b / a for a, b in paired.values() if a and b]


def planskip(runs):
    print("| arm | case | rows | ns/op (median) | allocs/op | round trips/op | index + record "
          "reads | mapped reads |")
    print("|---|---|---|---|---|---|---|---|")
    skips = [n for n in runs if n.startswith("skip3/")]
    for name in sorted(skips, key=lambda n: (short(n).split("/")[4], ["rows10", "rows1000"].index(
            short(n).split("/")[1]), short(n).split("/")[2], short(n).split("/")[3])):
        _, rows, direction, method, arm = short(name).split("/")
        e = runs[name]
        print(f"| {arm} | {rows}/{direction}/{method} | {fmt(median(e, 'rows'))} | "
              f"{fmt(median(e, 'real_time'))} | {fmt(median(e, 'allocs'), 1)} | "
              f"{fmt(median(e, 'round_trips'))} | {fmt(median(e, 'path_ranges'))} | "
              f"{fmt(median(e, 'path_mapped'))} |")
    print()
    print("| target | measured | target |")
    print("|---|---|---|")
    for name in ("targets/plan/five_indexes", "targets/plan/five_indexes/store"):
        if name in runs:
            e = runs[name]
            print(f"| planning, two predicates, five indexes ({name.split('/', 2)[2]}) | "
                  f"{median(e, 'real_time') / 1000:.1f} us, {fmt(median(e, 'allocs'))} allocations "
                  f"| <= 20 us |")
    for rows in ("rows10", "rows1000"):
        query = runs.get(f"targets/{rows}/query/real_time")
        hand = runs.get(f"targets/{rows}/scanIndexRecords/real_time")
        if not query or not hand:
            continue
        ratios = paired_ratios(hand, query)
        span = f" (paired {min(ratios):.2f}..{max(ratios):.2f})" if ratios else ""
        ratio = median(query, "real_time") / median(hand, "real_time")
        cpu = median(query, "cpu_time") / median(hand, "cpu_time")
        print(f"| {rows}: query / scanIndexRecords, time | {ratio:.3f} "
              f"({fmt(median(query, 'real_time'))} / {fmt(median(hand, 'real_time'))} ns){span}, "
              f"CPU {cpu:.3f} | <= 1.1 |")
        extra = (median(query, "allocs") - median(hand, "allocs")) / median(query, "rows")
        print(f"| {rows}: query - scanIndexRecords, allocations per row | {extra:+.2f} "
              f"({fmt(median(query, 'allocs'), 1)} - {fmt(median(hand, 'allocs'), 1)} per "
              f"{fmt(median(query, 'rows'))} rows) | <= 1 |")


def main():
    modes = {"rlbench": rlbench, "indexfetch": indexfetch, "planskip": planskip}
    if len(sys.argv) != 3 or sys.argv[1] not in modes:
        print(__doc__)
        return 2
    context, runs = load(sys.argv[2])
    print(f"<!-- {context.get('date', '')}; load average at start: "
          f"{context.get('load average at start', context.get('load_avg', ''))} -->")
    modes[sys.argv[1]](runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
