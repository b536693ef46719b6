"""Fair to correct float32 answers: each check's tolerance follows from the precision its exercise accepts,
calibrated from the solution run in float32 at the check's inputs (grader.judge.precision), and a known mistake
is named only on evidence beyond what precision explains.

The unit tests build values by hand; the slow ones grade real files many times in the sandbox.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
from pathlib import Path

import pytest
from hand_built import exercise, expect, group, mutant, no_inputs, numbers, observed, probe, run_result

from grader.core.errors import SpecError
from grader.core.numeric import Tolerance
from grader.core.values import Array, Number, Seq, Text
from grader.judge.catalog import Catalog
from grader.judge.check import ExerciseRun, check_exercise
from grader.judge.diagnose.diagnose import MutantRun, diagnose_exercise
from grader.judge.grading import grade_submission
from grader.judge.oracle import Expected
from grader.judge.precision import MARGIN, in_float32, slack
from grader.judge.report import ExerciseResult, Report
from grader.judge.spec import load_exercise
from grader.outputs.render_text import render_text
from grader.run.read.load import load_submission
from grader.run.sandbox import Sandbox

ROOT = Path(__file__).resolve().parent.parent
FIRST_GRADIENT = ROOT / "exercises" / "first-gradient"
ZERO_GRAD_FIX = ROOT / "exercises" / "zero-grad-fix"
NEVER_CLEARED = mutant("gradients-never-cleared")


# ---- the float32 form of a solution, and the slack it gives -----------------------------------------------


def test_a_solution_in_float32_is_its_source_with_torchs_float64_made_float32() -> None:
    source = ("import torch\n\n\ndef f(x):\n    w = torch.tensor(x, dtype=torch.float64)\n"
              "    b = torch.zeros(2, dtype=torch.double)\n    return w.double() + b\n")
    made = in_float32(source)
    assert made is not None and "float64" not in made and "double" not in made
    assert made.count("torch.float32") == 2 and "w.float()" in made
    assert in_float32("import torch\n\n\ndef f(x):\n    return torch.tensor(x) * 2\n") is None  # nothing to change


def test_the_slack_covers_the_float32_run_with_its_margin_element_by_element_and_no_more() -> None:
    want = {"v": Array((3,), (1.0, 1e-6, -2.0)), "n": Number(4.0), "t": Text("float"),
            "s": Seq((Number(10.0), Number(-3.0)))}
    float32 = {"v": Array((3,), (1.0 + 1e-7, 1e-6 + 1e-9, -2.0)), "n": Number(4.0), "t": Text("float"),
               "s": Seq((Number(10.0 + 4e-6), Number(-3.0)))}
    found = slack(want, float32)
    assert set(found) == {"v", "n", "s"}  # a text has no numbers to be off by
    for label, shape_of in (("v", lambda v: v.data), ("s", lambda v: [n.value for n in v.items])):
        for e, f in zip(shape_of(want[label]), shape_of(float32[label]), strict=True):
            assert found[label].close(e + 0.99 * MARGIN * (f - e), e)
            assert f == e or not found[label].close(e + 4 * MARGIN * (f - e), e)
    # the element near 0 is held to its own absolute slack, not to an rtol it would blow up
    assert found["v"].rtol < 1e-6


def test_float32_that_cannot_give_the_value_gives_no_slack() -> None:
    want = {"v": Array((2,), (1.0, 2.0)), "inf": Number(3.0)}
    assert slack(want, {"v": Array((3,), (1.0, 2.0, 3.0)), "inf": Number(float("inf"))}) == {}


# ---- scoring and naming, with the float32 slack by hand ---------------------------------------------------


def calibrated(value: float, float32_slack: float, *, accepted: bool) -> Expected:
    return dataclasses.replace(expect(x__grad=value), float32={"x.grad": Tolerance(rtol=float32_slack, atol=0.0)},
                               accepts_float32=accepted)


def graded(expected: Expected, got: float, theirs: float) -> ExerciseResult:
    """A torch exercise of one check, where the student observed `got` and the known mistake `theirs`."""
    ex = exercise(probe("p1"), engine="torch", mutants=(NEVER_CLEARED,))
    mine = group(observed(numbers(x__grad=got)))
    checked = check_exercise(ex, no_inputs(1), (expected,), {"cpu": ExerciseRun(run_result(mine), mine)})
    mistake = MutantRun(NEVER_CLEARED, group(observed(numbers(x__grad=theirs))))
    return diagnose_exercise(ex, checked, no_inputs(1), (expected,), {"cpu": mine}, [mistake])


def test_an_exercise_that_accepts_float32_scores_a_value_within_the_slack_full_marks() -> None:
    result = graded(calibrated(2.0, 1e-4, accepted=True), 2.0 * (1 + 5e-5), 3.0)
    assert result.checks[0].status == "passed"


def test_a_check_failed_by_precision_alone_says_so_and_names_no_mistake_even_where_a_mistake_gives_that_value() -> None:
    # the mistake gives exactly the student's float32 value: where it does no harm yet, it is the right answer
    value = 2.0 * (1 + 5e-5)
    result = graded(calibrated(2.0, 1e-4, accepted=False), value, value)
    check = result.checks[0]
    assert check.status == "failed" and check.cause.kind == "precision" and check.diagnosis is None
    difference, allowed = check.cause.detail.split()
    assert float(difference) == pytest.approx(5e-5, rel=0.05) and float(allowed) == pytest.approx(1e-6)
    assert "are your tensors float32?" in render_text_of(result)


def test_a_mistake_beyond_precision_is_still_named() -> None:
    result = graded(calibrated(2.0, 1e-4, accepted=True), 4.0, 4.0)
    check = result.checks[0]
    assert check.cause.kind == "wrong-value" and check.diagnosis is not None
    assert check.diagnosis.mistake == NEVER_CLEARED.mistake


def test_a_student_closer_to_the_right_value_than_precision_explains_is_not_named_by_a_mistake_near_it() -> None:
    # wrong beyond the declared tolerance, but the mistake is itself right to float32's precision there
    result = graded(calibrated(2.0, 1e-3, accepted=False), 2.0 * (1 + 2e-4), 2.0 * (1 + 3e-4))
    assert result.checks[0].cause.kind == "precision" and result.checks[0].diagnosis is None


def render_text_of(result: ExerciseResult) -> str:
    return render_text(Report(submission="f.py", sha256="", seed=0, exercises=(result,), grader_version="t"))


# ---- real files, graded many times ------------------------------------------------------------------------


def grade_at(sandbox: Sandbox, folder: Path, path: Path, seeds: range) -> list[tuple[int, ExerciseResult]]:
    exercise_ = Catalog(folder.parent).load(folder.name)
    return [(seed, grade_submission(sandbox, load_submission(path), [exercise_], seed=seed,
                                    devices=("cpu",)).exercises[0]) for seed in seeds]


def names(result: ExerciseResult) -> set[str]:
    return {c.diagnosis.mistake for c in result.checks if c.diagnosis is not None and c.diagnosis.kind != "unknown"}


@pytest.mark.slow
@pytest.mark.parametrize("path", [FIRST_GRADIENT / "variants" / "float32.py",
                                  ROOT / "submissions" / "first-gradient" / "correct_float32.py"],
                         ids=lambda p: p.name)
def test_first_gradient_gives_correct_float32_code_full_marks_at_every_seed(sandbox: Sandbox, path: Path) -> None:
    """Its starter makes float32 tensors; near saturation float32's sigmoid is off by 4e-4 relative, and a fixed
    rtol of 1e-5 cost 17 of these 40 seeds points."""
    lost = [(seed, r.score) for seed, r in grade_at(sandbox, FIRST_GRADIENT, path, range(40))
            if r.score < r.max_score or names(r)]
    assert not lost


@pytest.mark.slow
def test_the_same_answer_twice_compares_the_two_calls_with_each_other(sandbox: Sandbox, tmp_path: Path) -> None:
    """Off by 0.1% but the same both times: only the checks of values fail; piling up fails the check of calls."""
    steady = tmp_path / "steady.py"
    steady.write_text((FIRST_GRADIENT / "solution.py").read_text(encoding="utf-8").replace(
        "return loss.item(), w.grad.item(), b.grad.item()",
        "return loss.item() * 1.001, w.grad.item() * 1.001, b.grad.item() * 1.001"), encoding="utf-8")
    piling = ROOT / "submissions" / "first-gradient" / "shared_tensors.py"
    for path, twice in ((steady, "passed"), (piling, "failed")):
        ((_, result),) = grade_at(sandbox, FIRST_GRADIENT, path, range(1))
        statuses = {c.name: c.status for c in result.checks}
        assert statuses["the same answer twice"] == twice and statuses["new numbers"] == "failed", path.name


@pytest.mark.slow
@pytest.mark.parametrize("tolerance", ["{rtol: 1.0e-4, atol: 1.0e-6}", "{rtol: 1.0e-9, atol: 1.0e-12}"])
@pytest.mark.parametrize("accepted", [True, False], ids=["float32 accepted", "float64 only"])
def test_a_correct_float32_fix_is_never_named_gradients_never_cleared(sandbox: Sandbox, tmp_path: Path,
                                                                      tolerance: str, accepted: bool) -> None:
    """On its first step that mistake's values are the right float32 answer: a correct float32 fix equals them
    there. Where the exercise accepts float32 it scores full marks; where it asks for float64, its checks fail for
    precision and say so, and name nothing."""
    folder = tmp_path / "zero-grad-fix"
    shutil.copytree(ZERO_GRAD_FIX, folder)
    spec = folder / "exercise.yaml"
    text = re.sub(r"^tolerance: .*$", f"tolerance: {tolerance}", spec.read_text(encoding="utf-8"), flags=re.M)
    spec.write_text(text if accepted else re.sub(r"^precision: .*$", "", text, flags=re.M), encoding="utf-8")
    for variant in ("float32_everything.py", "zeroed_in_place.py"):
        ((_, result),) = grade_at(sandbox, folder, ZERO_GRAD_FIX / "variants" / variant, range(1))
        assert not names(result), (variant, names(result))
        if accepted:
            assert result.score == result.max_score, variant
        else:
            assert {c.cause.kind for c in result.checks if c.status == "failed"} <= {"precision"}, variant


def test_precision_is_said_of_torch_exercises_only(tmp_path: Path) -> None:
    folder = tmp_path / "node-mul"
    shutil.copytree(ROOT / "exercises" / "node-mul", folder)
    spec = folder / "exercise.yaml"
    spec.write_text(spec.read_text(encoding="utf-8") + "precision: float32\n", encoding="utf-8")
    with pytest.raises(SpecError, match="precision: is for engine: torch exercises"):
        load_exercise(spec)
    assert load_exercise(FIRST_GRADIENT / "exercise.yaml").precision == "float32"
