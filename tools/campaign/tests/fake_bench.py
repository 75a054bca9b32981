#!/usr/bin/python3
"""A stand-in for a Google Benchmark binary in the runner's tests: it accepts the flags the
runner passes and writes Google Benchmark's JSON for the one benchmark its filter names.

Environment: FAKE_NS (time per operation, ns; default 1000), FAKE_DIGEST (the label's digest;
"none" for no label), FAKE_ERROR (report the benchmark as failed with this message),
FAKE_LOG (append one line per process: the benchmark name, for counting runs)."""
import json
import os
import re
import sys


def main():
    args = dict(a[2:].split("=", 1) for a in sys.argv[1:] if a.startswith("--") and "=" in a)
    name = re.sub(r"\\(.)", r"\1", args["benchmark_filter"].strip("^$"))
    reps = int(args.get("benchmark_repetitions", "1"))
    ns = float(os.environ.get("FAKE_NS", "1000"))
    digest = os.environ.get("FAKE_DIGEST", "00000000000000aa")
    entries = []
    for i in range(reps):
        e = {"name": name, "run_name": name, "run_type": "iteration", "repetitions": reps,
             "repetition_index": i, "iterations": 100, "real_time": ns * (1 + 0.01 * i),
             "cpu_time": ns, "time_unit": "ns", "allocs": 7.0}
        if digest != "none":
            e["label"] = f"digest={digest}"
        if os.environ.get("FAKE_ERROR"):
            e["error_occurred"] = True
            e["error_message"] = os.environ["FAKE_ERROR"]
        entries.append(e)
    with open(args["benchmark_out"], "w") as f:
        json.dump({"context": {}, "benchmarks": entries}, f)
    if os.environ.get("FAKE_LOG"):
        with open(os.environ["FAKE_LOG"], "a") as f:
            f.write(name + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
