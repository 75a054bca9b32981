"""A campaign's outputs (docs/campaigns/README.md, "Reading a report"):
runs.csv and runs.json (every repetition of every process, labelled from the plan),
summary.json (the analysis, exclusions, environment, hashes), report.md and report.html (the
plots drawn by matplotlib and embedded as PNG data, so the page needs no network)."""
import base64
import csv
import html
import io
import json
import math
import os
import shlex

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402


def _num(x, digits=3):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    return f"{x:.{digits}g}" if digits else f"{x:.0f}"


def _ratio(x):
    return "-" if x is None or math.isnan(x) else f"{x:.3f}"


def summary(campaign):
    c = campaign.c
    return {
        "campaign": c["name"],
        "description": c.get("description", ""),
        "scale": campaign.plan["scale"],
        "status": campaign.status,
        "stopped": campaign.stopped,
        "command": " ".join(shlex.quote(a) for a in campaign.argv),
        "plan": campaign.plan["source"],
        "started": campaign.started.isoformat(timespec="seconds"),
        "finished": campaign.finished.isoformat(timespec="seconds"),
        "seed": c["seed"], "blocks": c["blocks"], "repeats": c["repeats"],
        "warmup": c["warmup"], "resamples": c["resamples"], "confidence": c["confidence"],
        "reference": campaign.reference, "metric": c["metric"], "metrics": c["metrics"],
        "topology": c["topology"],
        "arms": {name: {k: arm.get(k) for k in ("binary", "revision", "commit", "target", "path",
                                                  "args", "env", "vars", "backend", "delay_us",
                                                  "sha256")}
                 for name, arm in campaign.arms.items()},
        "cases": {name: case["benchmark"] for name, case in campaign.cases.items()},
        "orders": getattr(campaign, "orders", []),
        "design": getattr(campaign, "balance", {}),
        "case_orders": getattr(campaign, "case_orders", []),
        "parity": campaign.parity,
        "exclusions": campaign.exclusions,
        "gates": campaign.plan["gates"],
        "environment": campaign.env,
        "hashes": campaign.hashes,
        "analysis": campaign.analysis,
    }


def write_runs(campaign, out_dir):
    fields = ["campaign", "scale", "block", "case", "arm", "position", "repeat", "benchmark",
              "digest", "started", "iterations", "cpu_idle_before", *campaign.c["metrics"]]
    with open(os.path.join(out_dir, "runs.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        for r in campaign.runs:
            w.writerow(r)
    with open(os.path.join(out_dir, "runs.json"), "w") as f:
        json.dump(campaign.runs, f, indent=1)


def _png(fig):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode()


def forest_plot(s):
    """Ratios with their intervals, one row per case and arm (the primary metric)."""
    metric = s["metric"]
    rows = []
    for case, metrics in s["analysis"].items():
        for arm, r in metrics.get(metric, {}).get("ratios", {}).items():
            rows.append((f"{case} · {arm}", r))
    if not rows:
        return None
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(rows) + 1.2))
    for i, (label, r) in enumerate(reversed(rows)):
        aa = label.endswith("~aa")
        color = "#888888" if aa else "#1f5fa8"
        ax.plot([r["low"], r["high"]], [i, i], color=color, lw=2)
        ax.plot([r["estimate"]], [i], "o", color=color)
    ax.axvline(1.0, color="#aa3333", lw=1, ls="--")
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([label for label, _ in reversed(rows)], fontsize=8)
    ax.set_xscale("log")
    ticks = matplotlib.ticker.FormatStrFormatter("%.3g")
    ax.xaxis.set_major_formatter(ticks)
    ax.xaxis.set_minor_formatter(ticks)
    ax.tick_params(axis="x", which="minor", labelsize=7)
    ax.set_xlabel(f"{metric}: arm / {s['reference']} (geometric mean of block ratios, "
                  f"{s['confidence']:.0%} bootstrap interval)")
    ax.set_title("Ratios to the reference arm")
    return _png(fig)


def block_plot(s):
    """Per case, every block's ratio of each arm as a dot (the primary metric)."""
    metric = s["metric"]
    cases = [(case, m[metric]) for case, m in s["analysis"].items() if metric in m]
    if not cases:
        return None
    fig, axes = plt.subplots(len(cases), 1, figsize=(8, 1.6 * len(cases) + 0.6), squeeze=False)
    for ax, (case, m) in zip(axes[:, 0], cases):
        arms = list(m["ratios"])
        for i, arm in enumerate(arms):
            blocks = m["ratios"][arm]["blocks"]
            ys = list(blocks.values())
            ax.scatter(ys, [i] * len(ys), s=18, alpha=0.7,
                       color="#888888" if arm.endswith("~aa") else "#1f5fa8")
            est = m["ratios"][arm]["estimate"]
            if not math.isnan(est):
                ax.plot([est, est], [i - 0.3, i + 0.3], color="black", lw=1.5)
        ax.axvline(1.0, color="#aa3333", lw=1, ls="--")
        ax.set_yticks(range(len(arms)))
        ax.set_yticklabels(arms, fontsize=8)
        ax.set_ylim(-0.6, len(arms) - 0.4)
        ax.set_title(case, fontsize=9)
    axes[-1, 0].set_xlabel(f"{metric}: arm / {s['reference']}, one dot per block "
                           f"(bar: geometric mean)")
    fig.tight_layout()
    return _png(fig)


def markdown(s):
    lines = [f"# Campaign: {s['campaign']}", ""]
    if s["description"]:
        lines += [s["description"], ""]
    lines += [f"Status: **{s['status']}**" + (f" — {s['stopped']}" if s["stopped"] else ""), "",
              f"Scale `{s['scale']}`: {s['blocks']} blocks, {s['repeats']} repeat(s) per process "
              f"(after {s['warmup']} warm-up), seed {s['seed']}, reference arm "
              f"`{s['reference']}`, {s['resamples']:,} bootstrap resamples, "
              f"{s['confidence']:.0%} intervals. Started {s['started']}, finished "
              f"{s['finished']}.", "",
              "Command:", "", "```sh", s["command"], "```", ""]
    d = s.get("design") or {}
    if d:
        lines += [f"Williams design: {d['sequences']} arm orders (arms, the A/A control "
                  f"included); {s['blocks']} blocks "
                  + ("are a multiple of them: exactly balanced." if d["balanced"] else
                     "are not a multiple of them: not exactly balanced."), ""]
    metric = s["metric"]
    if s["analysis"]:
        lines += [f"## Ratios ({metric})", "",
                  f"Arm / `{s['reference']}`: geometric mean of the per-block ratios of "
                  f"per-process medians; interval: percentile bootstrap over blocks; "
                  f"leave-one-block-out: the smallest and largest estimate without one block. "
                  f"`~aa` is the A/A control (the reference arm run again): its interval is "
                  f"the noise floor.", "",
                  "| case | arm | ratio | interval | leave-one-block-out | blocks |",
                  "|---|---|---|---|---|---|"]
        for case, metrics in s["analysis"].items():
            for arm, r in metrics.get(metric, {}).get("ratios", {}).items():
                lines.append(f"| {case} | {arm} | **{_ratio(r['estimate'])}** | "
                             f"{_ratio(r['low'])}..{_ratio(r['high'])} | "
                             f"{_ratio(r['leave_one_out_min'])}..{_ratio(r['leave_one_out_max'])}"
                             f" | {len(r['blocks'])} |")
        lines += ["", "## Absolute values (medians over blocks)", ""]
        metrics = s["metrics"]
        lines += ["| case | arm | " + " | ".join(metrics) + " |",
                  "|---|---|" + "---|" * len(metrics)]
        for case, per_metric in s["analysis"].items():
            arms = list(next(iter(per_metric.values()))["absolute"]) if per_metric else []
            for arm in arms:
                cells = [_num(per_metric.get(m, {}).get("absolute", {}).get(arm))
                         for m in metrics]
                lines.append(f"| {case} | {arm} | " + " | ".join(cells) + " |")
        lines.append("")
    lines += ["## Exclusions", ""]
    if s["exclusions"]:
        lines += [f"- `{case}`: {reason}" for case, reason in s["exclusions"].items()]
    else:
        lines.append("None: every case passed its gates in every block.")
    lines += ["", "## Parity", ""]
    if s["parity"]:
        for case, digests in s["parity"].items():
            lines.append(f"- `{case}`: " + ", ".join(f"{a} `{d or 'none'}`"
                                                     for a, d in digests.items()))
    else:
        lines.append("Not checked (parity = \"off\")." if s["status"] != "stopped: parity"
                     else "Stopped: see the status above.")
    lines += ["", "## Arms", "", "| arm | binary or revision | args | backend | delay (us) | "
              "sha256 |", "|---|---|---|---|---|---|"]
    for name, a in s["arms"].items():
        what = a.get("binary") or f"{a.get('revision')} ({(a.get('commit') or '')[:12]}) " \
                                  f"{a.get('target')}"
        args = " ".join(a.get("args") or []) + " " + " ".join(
            f"{k}={v}" for k, v in (a.get("vars") or {}).items())
        lines.append(f"| {name} | `{what}` | {args.strip()} | {a.get('backend')} | "
                     f"{a.get('delay_us')} | `{(a.get('sha256') or '')[:16]}` |")
    lines += ["", "## Environment", ""]
    for k, v in s["environment"].items():
        lines.append(f"- {k}: {v}")
    lines.append(f"- topology: {s['topology']}")
    lines += [f"- plan sha256: `{s['hashes'].get('plan')}`"]
    for k, v in s["hashes"].get("fixture", {}).items():
        lines.append(f"- fixture {k}: {v}")
    g = s["gates"]
    lines += ["", "## Gates", "",
              f"Before each run: CPU idle >= {g['cpu_idle_min']:.0%} and steal <= "
              f"{g['cpu_steal_max']:.0%} over {g['cpu_window']} s (/proc/stat); memory available"
              f" >= {g['mem_available_min']:.0%}, memory pressure (avg10) <= "
              f"{g['mem_pressure_max']}%, no OOM kill since the previous run; up to "
              f"{g['retries']} retries {g['retry_wait']} s apart, then the case is excluded.", ""]
    return "\n".join(lines)


_MD_STYLE = """
body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
table{border-collapse:collapse;margin:0.5rem 0}td,th{border:1px solid #ccc;padding:2px 8px;
font-size:0.9rem;text-align:left}code,pre{background:#f4f4f4}pre{padding:0.5rem;overflow:auto}
img{max-width:100%}.status{font-size:1.1rem}
"""


def _md_to_html(md):
    """The report's Markdown subset (headings, lists, tables, code) as HTML."""
    out, in_table, in_code, in_list = [], False, False, False

    def inline(text):
        text = html.escape(text)
        parts = text.split("`")
        text = "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts))
        parts = text.split("**")
        return "".join(f"<b>{p}</b>" if i % 2 else p for i, p in enumerate(parts))

    for line in md.splitlines():
        if line.startswith("```"):
            out.append("</pre>" if in_code else "<pre>")
            in_code = not in_code
            continue
        if in_code:
            out.append(html.escape(line))
            continue
        if in_table and not line.startswith("|"):
            out.append("</table>")
            in_table = False
        if in_list and not line.startswith("- "):
            out.append("</ul>")
            in_list = False
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            if all(set(c) <= {"-"} for c in cells):
                continue
            tag = "th" if not in_table else "td"
            if not in_table:
                out.append("<table>")
                in_table = True
            out.append("<tr>" + "".join(f"<{tag}>{inline(c)}</{tag}>" for c in cells) + "</tr>")
        elif line.startswith("#"):
            level = len(line) - len(line.lstrip("#"))
            out.append(f"<h{level}>{inline(line[level:].strip())}</h{level}>")
        elif line.startswith("- "):
            if not in_list:
                out.append("<ul>")
                in_list = True
            out.append(f"<li>{inline(line[2:])}</li>")
        elif line.strip():
            out.append(f"<p>{inline(line)}</p>")
    if in_table:
        out.append("</table>")
    if in_list:
        out.append("</ul>")
    return "\n".join(out)


def html_page(s, md):
    forest, blocks = forest_plot(s), block_plot(s)
    plots = []
    if forest:
        plots.append(f'<h2>Forest plot</h2><img id="forest" alt="forest plot of ratios" '
                     f'src="data:image/png;base64,{forest}">')
    if blocks:
        plots.append(f'<h2>Per-block ratios</h2><img id="blocks" alt="per-block ratios" '
                     f'src="data:image/png;base64,{blocks}">')
    body = _md_to_html(md)
    # The plots after the title and status paragraph.
    head, sep, rest = body.partition("<h2>")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>Campaign: {html.escape(s['campaign'])}</title>"
            f"<style>{_MD_STYLE}</style></head><body>\n{head}{''.join(plots)}{sep}{rest}\n"
            "</body></html>\n")


def write_all(campaign, out_dir):
    s = summary(campaign)
    write_runs(campaign, out_dir)
    with open(os.path.join(out_dir, "summary.json"), "w") as f:
        json.dump(s, f, indent=1, default=str)
    md = markdown(s)
    with open(os.path.join(out_dir, "report.md"), "w") as f:
        f.write(md)
    with open(os.path.join(out_dir, "report.html"), "w") as f:
        f.write(html_page(s, md))
    return s
