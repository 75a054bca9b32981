"""The campaign runner: parity first, then one fresh process per arm x block x case in the
Williams order, gates before each run, and the analysis and reports at the end
(docs/campaigns/README.md)."""
import datetime
import json
import os
import re
import subprocess
import tempfile
import time

import design
import environment
import stats
from gates import Gates
from progress import Progress

AA_SUFFIX = "~aa"  # the A/A control: the reference arm run a second time, as its own arm


class CampaignError(Exception):
    """The campaign cannot go on (a benchmark failed, an arm cannot be built, ...)."""


class ParityError(CampaignError):
    """Arms computed different results: the campaign stops before (or instead of) timing."""


_SPECIAL = re.compile(r"([.^$*+?()\[\]{}|\\])")


def exact_filter(name):
    """A --benchmark_filter that matches exactly the benchmark `name`."""
    return "^" + _SPECIAL.sub(r"\\\1", name) + "$"


_UNIT_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def metric_value(entry, metric):
    """A metric of one Google Benchmark entry: real_time / cpu_time in ns, else a counter."""
    if metric in ("real_time", "cpu_time"):
        return float(entry[metric]) * _UNIT_NS.get(entry.get("time_unit", "ns"), 1.0)
    value = entry.get(metric)
    return float(value) if isinstance(value, (int, float)) else None


_DIGEST = re.compile(r"digest=([0-9a-fA-F]+)")


def run_process(cmd, env, timeout, benchmark):
    """Runs one benchmark process; (repetition entries of `benchmark`, digest or None, stderr
    tail). Raises CampaignError when it fails or reports an error."""
    with tempfile.TemporaryDirectory(prefix="campaign-") as tmp:
        out = os.path.join(tmp, "out.json")
        full = cmd + [f"--benchmark_out={out}", "--benchmark_out_format=json"]
        try:
            r = subprocess.run(full, env=env, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise CampaignError(f"timed out after {timeout:.0f} s: {' '.join(full)}") from None
        except OSError as e:
            raise CampaignError(f"cannot run {cmd[0]}: {e}") from None
        tail = (r.stderr or "")[-2000:]
        if r.returncode != 0:
            raise CampaignError(f"exit status {r.returncode}: {' '.join(full)}\n{tail}"
                                f"{(r.stdout or '')[-2000:]}")
        try:
            with open(out) as f:
                data = json.load(f)
        except (OSError, ValueError) as e:
            raise CampaignError(f"no JSON output ({e}): {' '.join(full)}\n{tail}") from None
    entries = [b for b in data.get("benchmarks", [])
               if b.get("run_type", "iteration") == "iteration"
               and benchmark in (b.get("run_name"), b.get("name"))]
    if not entries:
        names = sorted({b.get("run_name", b.get("name")) for b in data.get("benchmarks", [])})
        raise CampaignError(f"benchmark '{benchmark}' not in the output of {cmd[0]} "
                            f"(it ran: {', '.join(names[:5]) or 'nothing'})")
    for e in entries:
        if e.get("error_occurred"):
            raise CampaignError(f"benchmark '{benchmark}' failed: {e.get('error_message')}")
    digests = {m.group(1).lower() for e in entries
               for m in [_DIGEST.search(e.get("label", "") or "")] if m}
    if len(digests) > 1:
        raise ParityError(f"benchmark '{benchmark}' gave different digests in one process: "
                          f"{sorted(digests)}")
    return entries, (digests.pop() if digests else None), tail


class Campaign:
    def __init__(self, plan, out_dir, repo_root, argv=None, gates=None, progress_stream=None,
                 log=None):
        self.plan = plan
        self.c = plan["campaign"]
        self.out_dir = out_dir
        self.repo_root = repo_root
        self.argv = argv or []
        self.gates = gates if gates is not None else Gates(plan["gates"])
        self.progress_stream = progress_stream
        self.log = log or (lambda text: None)
        self.arms = {a["name"]: dict(a) for a in plan["arms"]}
        self.reference = self.c["reference"]
        if self.c["aa_control"]:
            aa = dict(self.arms[self.reference], name=self.reference + AA_SUFFIX)
            self.arms[aa["name"]] = aa
        self.cases = {c["name"]: c for c in plan["cases"]}
        self.runs = []          # every process's rows (one per repetition)
        self.exclusions = {}    # case -> reason
        self.parity = {}        # case -> {arm: digest}
        self.status = "not started"
        self.stopped = None     # why the campaign stopped early

    # ---- inputs ----------------------------------------------------------------------

    def resolve_arms(self):
        # Shared by campaigns: a revision is built once (and ccache shares what it can).
        build_root = os.path.join(self.repo_root, "build", "campaign-builds")
        for arm in self.arms.values():
            if "revision" in arm:
                key = (arm["revision"], arm["target"], tuple(arm.get("cmake_args", [])))
                built = getattr(self, "_built", {})
                if key not in built:
                    built[key] = environment.build_revision(
                        self.repo_root, arm["revision"], arm["target"], build_root,
                        arm.get("cmake_args", []), log=self.log)
                    self._built = built
                arm["path"], arm["commit"] = built[key]
            else:
                path = arm["binary"]
                if not os.path.isabs(path):
                    path = os.path.join(self.repo_root, path)
                if not os.path.isfile(path) or not os.access(path, os.X_OK):
                    raise CampaignError(f"arm '{arm['name']}': {arm['binary']} is not an "
                                        f"executable file (build it first)")
                arm["path"] = path
            arm["sha256"] = environment.sha256_file(arm["path"])

    def command(self, arm, case, repetitions, extra):
        name = case["benchmark"].format(**{**case["vars"], **arm["vars"]})
        cmd = [arm["path"], *arm["args"], *extra, *case["args"],
               f"--benchmark_filter={exact_filter(name)}",
               f"--benchmark_repetitions={repetitions}"]
        env = dict(os.environ, **arm["env"])
        return cmd, env, name

    # ---- parity ----------------------------------------------------------------------

    def check_parity(self, progress):
        mode = self.c["parity"]
        if mode == "off":
            return
        for case in self.cases.values():
            digests = {}
            for arm_name in self.plan_arm_names():
                arm = self.arms[arm_name]
                progress.update(f"parity {case['name']} / {arm_name}")
                cmd, env, name = self.command(arm, case, 1, self.c["parity_args"])
                _, digest, _ = run_process(cmd, env, self.c["timeout"], name)
                progress.advance()
                digests[arm_name] = digest
            self.parity[case["name"]] = digests
            missing = [a for a, d in digests.items() if d is None]
            if missing and mode == "require":
                raise ParityError(f"case '{case['name']}': arm(s) {', '.join(missing)} printed "
                                  f"no result digest (parity = \"require\"; use "
                                  f"\"when-present\" for a binary that predates digests)")
            present = {a: d for a, d in digests.items() if d is not None}
            if len(set(present.values())) > 1:
                listing = ", ".join(f"{a}={d}" for a, d in present.items())
                raise ParityError(f"case '{case['name']}': the arms computed different results "
                                  f"({listing}); a faster wrong answer is not reported")

    def plan_arm_names(self):
        return [a["name"] for a in self.plan["arms"]]

    # ---- the runs --------------------------------------------------------------------

    def run(self):
        os.makedirs(self.out_dir, exist_ok=True)
        self.started = datetime.datetime.now(datetime.timezone.utc)
        self.env = environment.describe(self.repo_root)
        self.hashes = {"plan": environment.sha256_file(self.plan["source"])
                       if os.path.isfile(self.plan["source"]) else None,
                       "fixture": self.fixture_hashes()}
        self.analysis = {}
        blocks = self.c["blocks"]
        arm_names = list(self.arms)
        self.orders = design.block_orders(arm_names, blocks, self.c["seed"])
        self.case_orders = design.case_orders(list(self.cases), blocks, self.c["seed"])
        sequences = len(design.williams_sequences(len(arm_names)))
        self.balance = {"sequences": sequences, "balanced": blocks % sequences == 0}
        try:
            self.resolve_arms()
        except (CampaignError, environment.BuildError) as e:
            self.status = "stopped: error"
            self.stopped = str(e)
            self.finished = datetime.datetime.now(datetime.timezone.utc)
            return self
        self.hashes["binaries"] = {a: arm["sha256"] for a, arm in self.arms.items()}
        parity_runs = 0 if self.c["parity"] == "off" else len(self.cases) * len(self.plan["arms"])
        progress = Progress(parity_runs + blocks * len(self.cases) * len(arm_names),
                            stream=self.progress_stream)
        self.status = "running"
        try:
            self.check_parity(progress)
            for block in range(blocks):
                for case_name in self.case_orders[block]:
                    if case_name in self.exclusions:
                        progress.advance(len(arm_names))
                        continue
                    self.run_block_case(block, self.cases[case_name], progress)
            self.status = "complete"
        except ParityError as e:
            self.status = "stopped: parity"
            self.stopped = str(e)
        except CampaignError as e:
            self.status = "stopped: error"
            self.stopped = str(e)
        except KeyboardInterrupt:  # the runs so far are still written out
            self.status = "stopped: interrupted"
            self.stopped = f"interrupted after {len(self.runs)} timed repetitions"
        progress.finish()
        self.finished = datetime.datetime.now(datetime.timezone.utc)
        self.analysis = self.analyse() if self.status == "complete" else {}
        return self

    def fixture_hashes(self):
        out = {}
        for path in self.c["fixture"]:
            full = path if os.path.isabs(path) else os.path.join(self.repo_root, path)
            out[path] = environment.sha256_file(full) if os.path.isfile(full) else "missing"
        return out or {"(none)": "the benchmarks generate their fixtures in process, seeded"}

    def run_block_case(self, block, case, progress):
        for position, arm_name in enumerate(self.orders[block]):
            arm = self.arms[arm_name]
            progress.update(f"block {block + 1}/{self.c['blocks']} {case['name']} / {arm_name}")
            passed, tries, failures = self.gates.check()
            if not passed:
                reason = (f"gate failed before block {block + 1}, arm {arm_name}, after "
                          f"{len(tries)} tries: {'; '.join(failures)}")
                self.exclusions[case["name"]] = reason
                progress.message(f"excluded {case['name']}: {reason}")
                progress.advance(len(self.orders[block]) - position)
                return
            warmup = self.c["warmup"]
            cmd, env, name = self.command(arm, case, self.c["repeats"] + warmup,
                                          self.c["benchmark_args"])
            started = time.time()
            entries, digest, _ = run_process(cmd, env, self.c["timeout"], name)
            expected = self.parity.get(case["name"], {}).get(arm_name.removesuffix(AA_SUFFIX))
            if self.c["parity"] != "off" and expected and digest != expected:
                raise ParityError(f"case '{case['name']}', arm {arm_name}, block {block + 1}: "
                                  f"digest {digest}, not {expected} as in the parity check")
            entries = sorted(entries, key=lambda e: e.get("repetition_index", 0))
            kept = entries[warmup:] if len(entries) > warmup else entries
            for i, e in enumerate(kept):
                row = {"campaign": self.c["name"], "scale": self.plan["scale"],
                       "block": block + 1, "case": case["name"], "arm": arm_name,
                       "position": position + 1, "repeat": i + 1, "benchmark": name,
                       "digest": digest or "", "started": round(started, 3),
                       "iterations": e.get("iterations"),
                       "cpu_idle_before": round(tries[-1]["cpu_idle"], 4)}
                for m in self.c["metrics"]:
                    row[m] = metric_value(e, m)
                self.runs.append(row)
            progress.advance()

    # ---- analysis --------------------------------------------------------------------

    def process_values(self, case, metric):
        """{(block, arm): the median of the process's repeats}."""
        grouped = {}
        for r in self.runs:
            if r["case"] == case and r.get(metric) is not None:
                grouped.setdefault((r["block"], r["arm"]), []).append(r[metric])
        return {k: stats.median(v) for k, v in grouped.items()}

    def analyse(self):
        out = {}
        arm_names = list(self.arms)
        for case in self.cases:
            if case in self.exclusions:
                continue
            out[case] = {}
            for metric in self.c["metrics"]:
                values = self.process_values(case, metric)
                if not values:
                    continue
                out[case][metric] = stats.summarize(values, self.reference, arm_names,
                                                    self.c["resamples"], self.c["confidence"],
                                                    self.c["seed"])
        return out
