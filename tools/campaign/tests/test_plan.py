"""Plan validation: good plans load with their defaults and scale; bad plans give errors
that name the key and what was expected."""
import pytest

import plan as plans

GOOD = """
[campaign]
name = "t"
reference = "a"
blocks = 6

[[arms]]
name = "a"
binary = "build/bin/x"
vars = { m = "A" }

[[arms]]
name = "b"
binary = "build/bin/x"
vars = { m = "B" }

[[cases]]
name = "one"
benchmark = "one/{m}"

[[cases]]
name = "two"
benchmark = "two/{m}"

[scales.quick]
blocks = 2
repeats = 1
cases = ["one"]
gates = { cpu_idle_min = 0.0 }
"""


def write(tmp_path, text):
    path = tmp_path / "plan.toml"
    path.write_text(text)
    return path


def test_good_plan_and_defaults(tmp_path):
    p = plans.load(write(tmp_path, GOOD), "full")
    c = p["campaign"]
    assert (c["blocks"], c["repeats"], c["resamples"], c["seed"]) == (6, 3, 20000, 1)
    assert c["parity"] == "require" and c["aa_control"] is True
    assert [case["name"] for case in p["cases"]] == ["one", "two"]
    assert p["gates"]["cpu_idle_min"] == plans.DEFAULT_GATES["cpu_idle_min"]


def test_scale_overrides(tmp_path):
    p = plans.load(write(tmp_path, GOOD), "quick")
    assert (p["campaign"]["blocks"], p["campaign"]["repeats"]) == (2, 1)
    assert [case["name"] for case in p["cases"]] == ["one"]
    assert p["gates"]["cpu_idle_min"] == 0.0
    assert plans.load(write(tmp_path, GOOD), "medium")["campaign"]["blocks"] == 6


@pytest.mark.parametrize("change, message", [
    (lambda t: t.replace("[campaign]", "[campaing]"), "unknown top-level key 'campaing'"),
    (lambda t: t.replace('reference = "a"', 'reference = "z"'),
     "reference 'z' is not one of the arms"),
    (lambda t: t.replace("blocks = 6", 'blocks = "six"'), "'blocks' must be an integer"),
    (lambda t: t.replace("blocks = 6", "blocks = 1"), "blocks must be at least 2"),
    (lambda t: t.replace("blocks = 6", "blokcs = 6"), "unknown key 'blokcs'"),
    (lambda t: t.replace('binary = "build/bin/x"\nvars = { m = "B" }',
                         'vars = { m = "B" }'), "exactly one of 'binary'"),
    (lambda t: t.replace('binary = "build/bin/x"\nvars = { m = "B" }',
                         'binary = "x"\nrevision = "HEAD"\nvars = { m = "B" }'),
     "exactly one of 'binary'"),
    (lambda t: t.replace('binary = "build/bin/x"\nvars = { m = "B" }',
                         'revision = "HEAD"\nvars = { m = "B" }'), "needs 'target'"),
    (lambda t: t.replace('benchmark = "two/{m}"', 'benchmark = "two/{size}"'),
     "names {size}"),
    (lambda t: t.replace('name = "b"', 'name = "a"'), "two arms have this name"),
    (lambda t: t.replace('cases = ["one"]', 'cases = ["three"]'), "unknown case(s) three"),
    (lambda t: t + '\n[gates]\ncpu_idle_min = 80\n', "'cpu_idle_min' is a fraction"),
    (lambda t: t.replace("[campaign]", '[campaign]\nparity = "maybe"'),
     "parity must be one of"),
    (lambda t: t.replace("[[cases]]", "[[case]]"), "unknown top-level key 'case'"),
    (lambda t: t + "\n[scales.huge]\nblocks = 3\n", "unknown key 'huge'"),
    (lambda t: t + "\n[[arms]\n", "not valid TOML"),
])
def test_bad_plans(tmp_path, change, message):
    with pytest.raises(plans.PlanError) as e:
        plans.load(write(tmp_path, change(GOOD)), "full")
    assert message in str(e.value)
    assert str(tmp_path / "plan.toml") in str(e.value) or "TOML" in str(e.value)


def test_missing_file(tmp_path):
    with pytest.raises(plans.PlanError, match="no such plan file"):
        plans.load(tmp_path / "absent.toml")


def test_unknown_scale(tmp_path):
    with pytest.raises(plans.PlanError, match="unknown scale 'huge'"):
        plans.load(write(tmp_path, GOOD), "huge")


def test_committed_plans_validate():
    import glob
    import os
    root = os.path.join(os.path.dirname(__file__), "..", "..", "..", "docs", "campaigns")
    files = sorted(glob.glob(os.path.join(root, "*.toml")))
    assert files, "docs/campaigns holds the project's plans"
    for path in files:
        for scale in plans.SCALES:
            p = plans.load(path, scale)
            assert p["arms"] and p["cases"]
