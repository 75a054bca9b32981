"""tools/campaign/run PLAN: runs a campaign and writes its reports (docs/campaigns/README.md)."""
import argparse
import datetime
import os
import sys

import plan as plans
import report
from runner import Campaign

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(os.path.dirname(HERE))


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="tools/campaign/run",
        description="Run a benchmark campaign: counterbalanced fresh-process runs, paired "
                    "ratios with bootstrap intervals, and a report (docs/campaigns/README.md).")
    p.add_argument("plan", help="the plan file (TOML)")
    p.add_argument("--scale", choices=plans.SCALES, default="full",
                   help="quick (CI: seconds), medium, full (default; the plan's own numbers)")
    p.add_argument("--out", help="output directory (default build/campaigns/<plan>-<scale>-"
                                 "<UTC time>)")
    p.add_argument("--seed", type=int, help="override the plan's seed")
    p.add_argument("--blocks", type=int, help="override the number of blocks")
    p.add_argument("--repo", default=REPO_ROOT,
                   help="repository whose binaries and revisions the plan names "
                        "(default: this one)")
    p.add_argument("--check", action="store_true", help="validate the plan and print it; run "
                                                         "nothing")
    return p.parse_args(argv)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    try:
        plan = plans.load(args.plan, args.scale)
        if args.seed is not None:
            plan["campaign"]["seed"] = args.seed
        if args.blocks is not None:
            if args.blocks < 2:
                raise plans.PlanError("--blocks must be at least 2")
            plan["campaign"]["blocks"] = args.blocks
    except plans.PlanError as e:
        print(f"campaign: plan error: {e}", file=sys.stderr)
        return 2
    c = plan["campaign"]
    if args.check:
        arms = ", ".join(a["name"] for a in plan["arms"])
        print(f"{c['name']} ({args.scale}): arms {arms}; {len(plan['cases'])} case(s); "
              f"{c['blocks']} blocks x {c['repeats']} repeats; reference {c['reference']}")
        return 0
    stem = os.path.splitext(os.path.basename(args.plan))[0]
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    out = args.out or os.path.join(args.repo, "build", "campaigns", f"{stem}-{args.scale}-{stamp}")
    command = ["tools/campaign/run", *argv]
    campaign = Campaign(plan, out, os.path.abspath(args.repo), argv=command,
                        log=lambda text: print(text, file=sys.stderr))
    print(f"campaign {c['name']} ({args.scale}) -> {out}", file=sys.stderr)
    campaign.run()
    s = report.write_all(campaign, out)
    print(f"campaign: {s['status']}" + (f": {s['stopped']}" if s["stopped"] else ""),
          file=sys.stderr)
    for case, reason in s["exclusions"].items():
        print(f"campaign: excluded {case}: {reason}", file=sys.stderr)
    print(f"report: {os.path.join(out, 'report.md')}\npage:   {os.path.join(out, 'report.html')}")
    if campaign.status == "complete":
        return 0
    return 3 if campaign.status == "stopped: parity" else 1
