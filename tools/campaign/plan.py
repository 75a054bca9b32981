"""Campaign plans: a TOML file read, merged with its scale and validated.

The schema is documented in docs/campaigns/README.md ("Plan files"). Every mistake is a
PlanError whose message names the file, the key and what was expected, so a plan is fixed
from the message alone.
"""
import copy
import os
import re
import tomllib

SCALES = ("quick", "medium", "full")
PARITY_MODES = ("require", "when-present", "off")

CAMPAIGN_KEYS = {
    "name": str, "description": str, "seed": int, "blocks": int, "repeats": int,
    "resamples": int, "confidence": float, "reference": str, "aa_control": bool,
    "parity": str, "metric": str, "metrics": list, "benchmark_args": list,
    "parity_args": list, "timeout": float, "fixture": list, "topology": str,
    "warmup": int,
}
GATE_KEYS = {
    "cpu_idle_min": float, "cpu_steal_max": float, "cpu_window": float,
    "mem_available_min": float, "mem_pressure_max": float, "retries": int,
    "retry_wait": float,
}
ARM_KEYS = {
    "name": str, "binary": str, "revision": str, "target": str, "args": list, "env": dict,
    "vars": dict, "backend": str, "delay_us": int, "cmake_args": list,
}
CASE_KEYS = {"name": str, "benchmark": str, "vars": dict, "args": list}
SCALE_KEYS = {"blocks": int, "repeats": int, "warmup": int, "cases": list, "arms": list,
              "benchmark_args": list, "resamples": int, "gates": dict}

DEFAULT_GATES = {
    "cpu_idle_min": 0.8,        # fraction of all CPUs idle over the window before a run
    "cpu_steal_max": 0.05,      # fraction of CPU time stolen by a hypervisor, at most
    "cpu_window": 0.5,          # seconds over which /proc/stat is sampled
    "mem_available_min": 0.10,  # MemAvailable / MemTotal, at least
    "mem_pressure_max": 5.0,    # /proc/pressure/memory "some avg10", at most (percent)
    "retries": 5,               # a failed gate is measured again this many times
    "retry_wait": 2.0,          # seconds between tries
}


class PlanError(Exception):
    """A plan that cannot be run, with what is wrong and where."""


def _type_name(t):
    return {str: "a string", int: "an integer", float: "a number", bool: "true or false",
            list: "a list", dict: "a table"}[t]


def _check_keys(where, table, allowed):
    if not isinstance(table, dict):
        raise PlanError(f"{where}: expected a table, got {type(table).__name__}")
    for key, value in table.items():
        if key not in allowed:
            raise PlanError(f"{where}: unknown key '{key}' (allowed: {', '.join(sorted(allowed))})")
        want = allowed[key]
        ok = isinstance(value, want) and not (want is int and isinstance(value, bool))
        if want is float and isinstance(value, int) and not isinstance(value, bool):
            ok = True
        if not ok:
            raise PlanError(f"{where}: '{key}' must be {_type_name(want)}, got {value!r}")


_NAME = re.compile(r"^[A-Za-z0-9_.+-]+$")
_CASE_NAME = re.compile(r"^[A-Za-z0-9_.+/-]+$")


def load(path, scale="full"):
    """The plan at `path` at `scale`, validated: a dict (see `validate`)."""
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except FileNotFoundError:
        raise PlanError(f"{path}: no such plan file") from None
    except tomllib.TOMLDecodeError as e:
        raise PlanError(f"{path}: not valid TOML: {e}") from None
    return validate(data, scale, source=str(path), base_dir=os.path.dirname(os.path.abspath(path)))


def validate(data, scale="full", source="<plan>", base_dir="."):
    """Checks a parsed plan and returns it merged with `scale`, defaults filled in."""
    if scale not in SCALES:
        raise PlanError(f"unknown scale '{scale}' (one of {', '.join(SCALES)})")
    top = {"campaign", "gates", "arms", "cases", "scales"}
    for key in data:
        if key not in top:
            raise PlanError(f"{source}: unknown top-level key '{key}' "
                            f"(allowed: {', '.join(sorted(top))})")
    if "campaign" not in data:
        raise PlanError(f"{source}: missing the [campaign] table")
    campaign = copy.deepcopy(data["campaign"])
    _check_keys(f"{source}: [campaign]", campaign, CAMPAIGN_KEYS)
    for key in ("name", "reference"):
        if key not in campaign:
            raise PlanError(f"{source}: [campaign] needs '{key}'")
    gates = dict(DEFAULT_GATES)
    if "gates" in data:
        _check_keys(f"{source}: [gates]", data["gates"], GATE_KEYS)
        gates.update(data["gates"])

    arms = data.get("arms")
    if not isinstance(arms, list) or not arms:
        raise PlanError(f"{source}: needs at least one [[arms]] table")
    seen = set()
    checked_arms = []
    for i, arm in enumerate(arms):
        where = f"{source}: arms[{i}]"
        _check_keys(where, arm, ARM_KEYS)
        arm = dict(arm)
        name = arm.get("name")
        if not name:
            raise PlanError(f"{where}: needs a 'name'")
        where = f"{source}: arm '{name}'"
        if not _NAME.match(name) or name.endswith("~aa"):
            raise PlanError(f"{where}: a name is letters, digits and _ . + - (and not ending ~aa)")
        if name in seen:
            raise PlanError(f"{where}: two arms have this name")
        seen.add(name)
        if ("binary" in arm) == ("revision" in arm):
            raise PlanError(f"{where}: give exactly one of 'binary' (a built benchmark) or "
                            f"'revision' (a git revision to build)")
        if "revision" in arm and "target" not in arm:
            raise PlanError(f"{where}: a 'revision' arm needs 'target' (the benchmark to build)")
        if "binary" in arm and not os.path.isabs(arm["binary"]):
            arm["binary"] = arm["binary"]  # resolved against the repository root by the runner
        for key in ("args", "cmake_args"):
            for a in arm.get(key, []):
                if not isinstance(a, str):
                    raise PlanError(f"{where}: '{key}' must be a list of strings, got {a!r}")
        for key, value in arm.get("env", {}).items():
            if not isinstance(value, str):
                raise PlanError(f"{where}: env '{key}' must be a string, got {value!r}")
        arm.setdefault("args", [])
        arm.setdefault("env", {})
        arm.setdefault("vars", {})
        arm.setdefault("backend", "memory:")
        arm.setdefault("delay_us", 0)
        checked_arms.append(arm)

    cases = data.get("cases")
    if not isinstance(cases, list) or not cases:
        raise PlanError(f"{source}: needs at least one [[cases]] table")
    checked_cases = []
    case_names = set()
    for i, case in enumerate(cases):
        where = f"{source}: cases[{i}]"
        _check_keys(where, case, CASE_KEYS)
        case = dict(case)
        for key in ("name", "benchmark"):
            if key not in case:
                raise PlanError(f"{where}: needs '{key}'")
        if not _CASE_NAME.match(case["name"]):
            raise PlanError(f"{where}: name '{case['name']}' may hold letters, digits and _ . + / -")
        if case["name"] in case_names:
            raise PlanError(f"{where}: two cases are named '{case['name']}'")
        case_names.add(case["name"])
        case.setdefault("vars", {})
        case.setdefault("args", [])
        for arm in checked_arms:
            try:
                case["benchmark"].format(**{**case["vars"], **arm["vars"]})
            except KeyError as e:
                raise PlanError(f"{where}: benchmark '{case['benchmark']}' names {{{e.args[0]}}}, "
                                f"which neither the case's nor arm '{arm['name']}''s vars "
                                f"define") from None
        checked_cases.append(case)

    # The scale: blocks, repeats and selections override the campaign's.
    scales = data.get("scales", {})
    _check_keys(f"{source}: [scales]", scales, {s: dict for s in SCALES})
    for name, table in scales.items():  # every scale's, whichever runs
        _check_keys(f"{source}: [scales.{name}]", table, SCALE_KEYS)
        if "gates" in table:
            _check_keys(f"{source}: [scales.{name}.gates]", table["gates"], GATE_KEYS)
        for key, known in (("arms", seen), ("cases", case_names)):
            unknown = [x for x in table.get(key, []) if x not in known]
            if unknown:
                raise PlanError(f"{source}: [scales.{name}] {key} names unknown {key[:-1]}(s) "
                                f"{', '.join(map(str, unknown))}")
    overrides = scales.get(scale, {})
    gates.update(overrides.get("gates", {}))
    for key in ("blocks", "repeats", "warmup", "resamples", "benchmark_args"):
        if key in overrides:
            campaign[key] = overrides[key]
    if "arms" in overrides:
        checked_arms = [a for a in checked_arms if a["name"] in overrides["arms"]]
    if "cases" in overrides:
        checked_cases = [c for c in checked_cases if c["name"] in overrides["cases"]]

    campaign.setdefault("seed", 1)
    campaign.setdefault("blocks", 10)
    campaign.setdefault("repeats", 3)
    campaign.setdefault("resamples", 20000)
    campaign.setdefault("confidence", 0.95)
    campaign.setdefault("aa_control", True)
    campaign.setdefault("parity", "require")
    campaign.setdefault("metric", "real_time")
    campaign.setdefault("metrics", [])
    campaign.setdefault("benchmark_args", [])
    campaign.setdefault("parity_args", ["--benchmark_min_time=0.01"])
    campaign.setdefault("timeout", 1800.0)
    campaign.setdefault("fixture", [])
    campaign.setdefault("topology", "in-process")
    campaign.setdefault("warmup", 1)
    where = f"{source}: [campaign]"
    if campaign["reference"] not in {a["name"] for a in checked_arms}:
        raise PlanError(f"{where}: reference '{campaign['reference']}' is not one of the arms "
                        f"({', '.join(a['name'] for a in checked_arms)})")
    if len(checked_arms) < 2 and not campaign["aa_control"]:
        raise PlanError(f"{where}: one arm and no A/A control leaves nothing to compare")
    if campaign["blocks"] < 2:
        raise PlanError(f"{where}: blocks must be at least 2 (ratios are per block), "
                        f"got {campaign['blocks']}")
    if campaign["repeats"] < 1:
        raise PlanError(f"{where}: repeats must be at least 1, got {campaign['repeats']}")
    if campaign["warmup"] < 0:
        raise PlanError(f"{where}: warmup must be at least 0, got {campaign['warmup']}")
    if campaign["resamples"] < 100:
        raise PlanError(f"{where}: resamples must be at least 100, got {campaign['resamples']}")
    if not 0.5 < campaign["confidence"] < 1:
        raise PlanError(f"{where}: confidence must lie between 0.5 and 1, "
                        f"got {campaign['confidence']}")
    if campaign["parity"] not in PARITY_MODES:
        raise PlanError(f"{where}: parity must be one of {', '.join(PARITY_MODES)}, "
                        f"got '{campaign['parity']}'")
    for key in ("metrics", "benchmark_args", "parity_args", "fixture"):
        for v in campaign[key]:
            if not isinstance(v, str):
                raise PlanError(f"{where}: '{key}' must be a list of strings, got {v!r}")
    if campaign["metric"] not in campaign["metrics"]:
        campaign["metrics"] = [campaign["metric"]] + list(campaign["metrics"])
    for key in ("cpu_idle_min", "cpu_steal_max", "mem_available_min"):
        if not 0 <= gates[key] <= 1:
            raise PlanError(f"{source}: [gates] '{key}' is a fraction in [0, 1], got {gates[key]}")
    if gates["retries"] < 0 or gates["cpu_window"] <= 0:
        raise PlanError(f"{source}: [gates] retries must be >= 0 and cpu_window > 0")
    return {"campaign": campaign, "gates": gates, "arms": checked_arms, "cases": checked_cases,
            "scale": scale, "source": source, "base_dir": base_dir}
