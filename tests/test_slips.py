"""Sign slips: the reference engine with one slope flipped, and the rule a slip is blamed on.

The independent buggy set (test_diagnosis) counts a slip as the pattern `negated`; these tests hold
the part a student reads: which rule, and which operand, the hint blames.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grader.cli import main
from grader.judge.diagnose.slips import SLOPES, Slope, slipped, to_write
from reference.scalar import Node

ROOT = Path(__file__).resolve().parent.parent
SLOPE = {(s.method, s.operand): s for s in SLOPES}


def gradients(engine: type[Node], build: str) -> tuple[float, float, float]:
    x, y = engine(1.7), engine(-0.6)
    out = eval(build, {"x": x, "y": y})
    out.backward()
    return out.value, x.grad, y.grad


#: an expression that calls `method` (with a number on the left for the reverse rules)
CALLS = {"__add__": "x + y", "__sub__": "x - y", "__mul__": "x * y", "__truediv__": "x / y",
         "__radd__": "2.5 + x", "__rsub__": "2.5 - x", "__rmul__": "2.5 * x", "__rtruediv__": "2.5 / x",
         "__pow__": "x ** 3", "__neg__": "-x", "sigmoid": "x.sigmoid()", "relu": "x.relu()", "tanh": "x.tanh()",
         "exp": "x.exp()", "log": "x.log()"}


@pytest.mark.parametrize("slope", SLOPES, ids=lambda s: f"{s.method}-{s.operand}")
def test_a_slipped_engine_keeps_every_value_and_flips_one_slope_only(slope: Slope) -> None:
    value, dx, dy = gradients(Node, CALLS[slope.method])
    slipped_value, sx, sy = gradients(slipped(slope), CALLS[slope.method])
    assert slipped_value == value
    assert (sx, sy) == ((-dx, dy) if slope.operand == 0 else (dx, -dy))
    assert (sx, sy) != (dx, dy)
    for method, call in CALLS.items():  # every other rule of that engine is the reference's
        if method != slope.method:
            assert gradients(slipped(slope), call) == pytest.approx(gradients(Node, call), abs=1e-15), call


def test_a_shared_slip_shows_in_the_reverse_rule_built_from_it() -> None:
    denominator = SLOPE[("__truediv__", 1)]
    _, dx, _ = gradients(Node, "2.5 / x")
    assert gradients(slipped(denominator), "2.5 / x")[1] == dx  # its own rule: k / x is right
    assert gradients(slipped(denominator, True), "2.5 / x")[1] == -dx  # built from /: the slip shows


def test_a_slip_is_blamed_only_on_what_the_starter_asks_for() -> None:
    assert to_write(ROOT / "exercises" / "node-pow" / "starter.py") == {"__pow__"}
    assert to_write(ROOT / "exercises" / "node-sub" / "starter.py") == {"__sub__", "__rsub__"}
    assert {"__truediv__", "__rtruediv__", "log"} <= to_write(ROOT / "exercises" / "tiny-engine" / "starter.py")


@pytest.mark.parametrize(("sample", "blamed"), [
    ("node-sub__rsub_slope_positive", "d(k - x)/dx (__rsub__)"),
    ("node-pow__negative_exponent_sign", "d(x ** n)/dx (__pow__)"),
    ("tiny-engine__division_denominator_sign", "d(x / y)/dy (__truediv__), which __rtruediv__ is built from"),
])
def test_a_slip_in_one_rule_is_named_with_its_rule(sample: str, blamed: str, tmp_path: Path) -> None:
    report_path = tmp_path / "report.json"
    assert main([str(ROOT / "submissions" / "mistakes" / f"{sample}.py"), "--format", "json",
                 "--output", str(report_path)]) == 1
    report = json.loads(report_path.read_text())
    checks = [c for e in report["exercises"] for c in e["checks"] if c.get("diagnosis")]
    assert checks and all(c["diagnosis"]["mistake"] == "negated" for c in checks)
    # the evidence quotes the check's values: shown for public checks, withheld for hidden ones
    assert all(blamed in c["diagnosis"]["evidence"] if c["visibility"] == "public"
               else c["diagnosis"]["evidence"] == "withheld: this check is hidden" for c in checks)
