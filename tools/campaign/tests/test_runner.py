"""The runner end to end on a stand-in benchmark binary (fake_bench.py): labelled rows, the
analysis, parity stopping a wrong arm, a forced gate failure excluding a case, the outputs,
and the command line."""
import csv
import json
import os
import subprocess

import pytest

import main
import plan as plans
import report
from gates import Gates
from runner import Campaign, exact_filter, metric_value

FAKE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_bench.py")
RUN = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "run")


def plan_text(b_ns="2000", b_digest="00000000000000aa", parity="require", blocks=4,
              extra_case=True):
    text = f"""
[campaign]
name = "fake"
reference = "a"
blocks = {blocks}
repeats = 3
warmup = 1
seed = 9
resamples = 500
parity = "{parity}"
metrics = ["cpu_time", "allocs"]

[gates]
cpu_idle_min = 0.0
cpu_window = 0.01
retries = 0

[[arms]]
name = "a"
binary = "{FAKE}"
vars = {{ arm = "A" }}
env = {{ FAKE_NS = "1000" }}

[[arms]]
name = "b"
binary = "{FAKE}"
vars = {{ arm = "B" }}
env = {{ FAKE_NS = "{b_ns}", FAKE_DIGEST = "{b_digest}" }}

[[cases]]
name = "first"
benchmark = "first/{{arm}}/real_time"
"""
    if extra_case:
        text += """
[[cases]]
name = "second"
benchmark = "second/{arm}/real_time"
"""
    return text


def load(tmp_path, text, scale="full"):
    path = tmp_path / "plan.toml"
    path.write_text(text)
    return plans.load(path, scale)


class QuietGates:
    """Gates that always pass, counting the checks."""

    def __init__(self):
        self.checks = 0

    def check(self):
        self.checks += 1
        return True, [{"cpu_idle": 1.0, "cpu_steal": 0.0}], []


def run(tmp_path, text, gates=None, env=None):
    p = load(tmp_path, text)
    out = tmp_path / "out"
    log = tmp_path / "log"
    os.environ["FAKE_LOG"] = str(log)
    try:
        c = Campaign(p, str(out), str(tmp_path), argv=["test"], gates=gates or QuietGates(),
                     progress_stream=open(os.devnull, "w")).run()
    finally:
        del os.environ["FAKE_LOG"]
    s = report.write_all(c, str(out))
    runs = log.read_text().splitlines() if log.exists() else []
    return c, s, out, runs


def test_exact_filter_and_metrics():
    assert exact_filter("small/rows10/forward/SCAN_AND_FETCH/rl/real_time") == \
        "^small/rows10/forward/SCAN_AND_FETCH/rl/real_time$"
    assert exact_filter("a.b(c)+") == r"^a\.b\(c\)\+$"
    entry = {"real_time": 2.5, "cpu_time": 2.0, "time_unit": "us", "allocs": 3}
    assert metric_value(entry, "real_time") == 2500.0
    assert metric_value(entry, "allocs") == 3.0
    assert metric_value(entry, "bytes") is None


def test_campaign_end_to_end(tmp_path):
    c, s, out, processes = run(tmp_path, plan_text())
    assert c.status == "complete"
    # Parity: one process per case and arm; timing: one per arm x block x case (A/A included).
    assert len(processes) == 2 * 2 + 4 * 2 * 3
    assert len(c.runs) == 4 * 2 * 3 * 3
    # Rows are labelled from the plan: arm, case and the benchmark the plan named.
    letter = {"a": "A", "b": "B", "a~aa": "A"}
    for row in c.runs:
        assert row["benchmark"] == f"{row['case']}/{letter[row['arm']]}/real_time"
    r = s["analysis"]["first"]["real_time"]["ratios"]
    assert r["b"]["estimate"] == pytest.approx(2.0)
    assert r["b"]["low"] == pytest.approx(2.0) and r["b"]["high"] == pytest.approx(2.0)
    assert r["a~aa"]["estimate"] == pytest.approx(1.0)
    # Per process the median of the repeats after the warm-up: 1000 * (1.01, 1.02, 1.03).
    assert s["analysis"]["first"]["real_time"]["absolute"]["a"] == pytest.approx(1020.0)
    assert s["analysis"]["first"]["allocs"]["absolute"]["b"] == 7.0
    # Every block ran every arm once per case, in its Williams order.
    assert len(s["orders"]) == 4 and all(sorted(o) == ["a", "a~aa", "b"] for o in s["orders"])
    with open(out / "runs.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(c.runs)
    assert {"block", "case", "arm", "position", "repeat", "real_time", "digest"} <= set(rows[0])
    assert json.loads((out / "runs.json").read_text()) == json.loads(json.dumps(c.runs))
    md = (out / "report.md").read_text()
    assert "**2.000**" in md and "None: every case passed its gates" in md
    assert "sha256" in md and "## Environment" in md
    page = (out / "report.html").read_text()
    assert 'id="forest"' in page and 'id="blocks"' in page and "http" not in page.lower()


def test_wrong_arm_stops_the_campaign_before_timing(tmp_path):
    c, s, out, processes = run(tmp_path, plan_text(b_ns="500", b_digest="00000000000000bb"))
    assert c.status == "stopped: parity"
    assert "different results" in c.stopped and "b=00000000000000bb" in c.stopped
    assert c.runs == [] and s["analysis"] == {}
    assert len(processes) == 2  # the first case's parity runs, then nothing
    md = (out / "report.md").read_text()
    assert "stopped: parity" in md and "faster wrong answer" in md


def test_missing_digest(tmp_path):
    c, _, _, _ = run(tmp_path, plan_text(b_digest="none"))
    assert c.status == "stopped: parity" and "printed no result digest" in c.stopped
    c, _, _, _ = run(tmp_path, plan_text(b_digest="none", parity="when-present"))
    assert c.status == "complete"


def test_benchmark_error_stops_the_campaign(tmp_path):
    text = plan_text().replace('FAKE_NS = "1000"', 'FAKE_NS = "1000", FAKE_ERROR = "row 3: ID"')
    c, _, _, _ = run(tmp_path, text)
    assert c.status == "stopped: error" and "row 3: ID" in c.stopped


class BusyFirst:
    """/proc/stat busy for the first `busy_samples` samples, then idle."""

    def __init__(self, busy_samples):
        self.busy_samples = busy_samples
        self.samples = 0
        self.user = self.idle = 0

    def read(self, path):
        if path == "/proc/stat":
            busy = self.samples < self.busy_samples
            self.samples += 1
            self.user += 90 if busy else 1
            self.idle += 10 if busy else 99
            return f"cpu  {self.user} 0 0 {self.idle} 0 0 0 0 0 0\n"
        if path == "/proc/meminfo":
            return "MemTotal: 100 kB\nMemAvailable: 90 kB\n"
        raise FileNotFoundError(path)


def test_forced_gate_failure_excludes_the_case_with_its_reason(tmp_path):
    proc = BusyFirst(busy_samples=2 * 3)  # every try of the first run's gate (2 retries)
    config = dict(plans.DEFAULT_GATES, cpu_idle_min=0.5, retries=2, retry_wait=0.0)
    gates = Gates(config, read=proc.read, sleep=lambda s: None)
    c, s, out, _ = run(tmp_path, plan_text(), gates=gates)
    assert c.status == "complete"
    first = c.case_orders[0][0]  # the case that ran first in block 1
    other = "second" if first == "first" else "first"
    assert list(c.exclusions) == [first]
    reason = c.exclusions[first]
    assert "after 3 tries" in reason and "CPU idle 10% < 50%" in reason and "block 1" in reason
    assert all(r["case"] != first for r in c.runs)  # excluded whole: no rows at all
    assert first not in s["analysis"] and other in s["analysis"]
    assert s["analysis"][other]["real_time"]["ratios"]["b"]["estimate"] == pytest.approx(2.0)
    md = (out / "report.md").read_text()
    assert f"- `{first}`: gate failed" in md


def test_command_line(tmp_path, capsys):
    path = tmp_path / "plan.toml"
    path.write_text(plan_text().replace("[campaign]", "[campaign]\nbogus = 1"))
    assert main.main([str(path)]) == 2
    err = capsys.readouterr().err
    assert "plan error" in err and "unknown key 'bogus'" in err
    path.write_text(plan_text(blocks=2, extra_case=False))
    assert main.main([str(path), "--check"]) == 0
    assert "arms a, b" in capsys.readouterr().out
    # The run script itself, as a user runs it.
    out = tmp_path / "cli-out"
    r = subprocess.run([RUN, str(path), "--out", str(out), "--repo", str(tmp_path)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "campaign: complete" in r.stderr
    assert (out / "report.html").exists() and (out / "summary.json").exists()
    s = json.loads((out / "summary.json").read_text())
    assert s["command"].startswith("tools/campaign/run ")
    bad = tmp_path / "wrong.toml"
    bad.write_text(plan_text(b_digest="00000000000000bb", extra_case=False))
    r = subprocess.run([RUN, str(bad), "--out", str(tmp_path / "o2"), "--repo", str(tmp_path)],
                       capture_output=True, text=True)
    assert r.returncode == 3 and "different results" in r.stderr


def test_an_arm_that_cannot_be_built_stops_with_the_reason(tmp_path):
    text = plan_text(extra_case=False).replace(f'binary = "{FAKE}"\nvars = {{ arm = "B" }}',
                                               'revision = "no-such-rev"\ntarget = "rlbench"\n'
                                               'vars = { arm = "B" }')
    assert "no-such-rev" in text
    c, s, out, processes = run(tmp_path, text)
    assert c.status == "stopped: error"
    assert "git revision 'no-such-rev' is not a commit" in c.stopped
    assert processes == [] and "stopped: error" in (out / "report.md").read_text()


def test_the_report_says_whether_the_design_is_balanced(tmp_path):
    _, s, out, _ = run(tmp_path, plan_text(blocks=6, extra_case=False))
    assert s["design"] == {"sequences": 6, "balanced": True}
    assert "exactly balanced" in (out / "report.md").read_text()
    _, s, out, _ = run(tmp_path, plan_text(blocks=4, extra_case=False))
    assert s["design"]["balanced"] is False
    assert "not exactly" in (out / "report.md").read_text()


def test_an_interruption_still_writes_the_runs_so_far(tmp_path):
    class InterruptSecondCheck(QuietGates):
        def check(self):
            if self.checks == 1:  # the second run's gate: Ctrl-C
                raise KeyboardInterrupt
            return super().check()

    c, s, out, _ = run(tmp_path, plan_text(extra_case=False), gates=InterruptSecondCheck())
    assert c.status == "stopped: interrupted"
    assert len(c.runs) == 3 and "after 3 timed repetitions" in c.stopped
    assert len((out / "runs.csv").read_text().splitlines()) == 1 + 3
