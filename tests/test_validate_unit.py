"""grader.course.validate on its own: a copy of node-mul broken on purpose, and each break named with its file or probe.

Each broken exercise is validated once (module fixtures, one seed): the solution and the mutants run in
the sandbox, which is why these tests are marked slow. Every test also checks that what was not broken
still passes, so a finding can be trusted to point at the break and nothing else.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from grader.course.validate import Validation, validate_exercise
from grader.judge.spec import load_exercise
from grader.run.sandbox import Sandbox

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow

#: what each break adds to node-mul's probes (its points raised to match)
TINY_PROBE = """
  - name: a tiny product
    points: 1
    inputs: {a: scalar, b: scalar}
    code: |
      x, y = Node(a), Node(b)
      out = x * y
    observe: [{small: out.value * 1.0e-11}]

  - name: a difference
    points: 1
    inputs: {a: scalar, b: scalar}
    code: |
      x, y = Node(a), Node(b)
      out = x - y
    observe: [out.value]
"""
LESSON_PROBE = """
  - name: "lesson: three times two"
    points: 1
    inputs: {a: 3.0, b: 2.0}
    code: |
      x, y = Node(a), Node(b)
      out = x * y
    observe: [out.value, {double: out.value * 2}]
    printed: {out.value: "6", double: 12.5}
"""


def copy_of_node_mul(parent: Path, exercise_id: str, *, more_probes: str = "", more_points: int = 0) -> Path:
    """node-mul under another id (so that nothing cached for the real one is reused), with probes added."""
    folder = parent / exercise_id
    shutil.copytree(ROOT / "exercises" / "node-mul", folder)
    spec = folder / "exercise.yaml"
    text = spec.read_text(encoding="utf-8").replace("id: node-mul", f"id: {exercise_id}")
    spec.write_text(text.replace("points: 10", f"points: {10 + more_points}") + more_probes, encoding="utf-8")
    return folder


def validate(folder: Path, sandbox: Sandbox) -> Validation:
    return validate_exercise(load_exercise(folder / "exercise.yaml"), sandbox, seeds=(0,))


def failed(validation: Validation) -> list[str]:
    return [f.text for f in validation.findings if not f.ok]


def passed(validation: Validation) -> list[str]:
    return [f.text for f in validation.findings if f.ok]


@pytest.fixture(scope="module")
def broken(tmp_path_factory: pytest.TempPathFactory, sandbox: Sandbox) -> tuple[Path, Validation]:
    """A solution that overwrites a grad, a starter that is already the answer, a mutant with no mistake, a
    mutant that is another one under a second name, a TODO left in a mutant, a probe whose value is rounding
    noise and a probe that uses what the exercise does not teach."""
    folder = copy_of_node_mul(tmp_path_factory.mktemp("broken"), "broken-mul", more_probes=TINY_PROBE, more_points=2)
    solution = (folder / "solution.py").read_text(encoding="utf-8")
    (folder / "starter.py").write_text(solution, encoding="utf-8")
    (folder / "solution.py").write_text(solution.replace("self.grad += other.value * out.grad",
                                                         "self.grad = other.value * out.grad"), encoding="utf-8")
    docstring = '"""Exercise node-mul: multiplication for the tiny autograd engine (solution)."""'
    assert docstring in solution
    (folder / "mutants" / "no_mistake.py").write_text(
        solution.replace(docstring, '"""Mutant.\n\nmistake: no-mistake\nhint: nothing is wrong here.\n"""'),
        encoding="utf-8")
    overwrite = (folder / "mutants" / "overwrite.py").read_text(encoding="utf-8")
    (folder / "mutants" / "twin.py").write_text(
        overwrite.replace("mistake: overwrite-not-accumulate", "mistake: a-twin-of-overwrite"), encoding="utf-8")
    swapped = folder / "mutants" / "swapped_locals.py"
    swapped.write_text(swapped.read_text(encoding="utf-8") + "# TODO(grade new): say why the locals are swapped\n",
                       encoding="utf-8")
    return folder, validate(folder, sandbox)


def test_a_broken_exercise_is_not_ok(broken: tuple[Path, Validation]) -> None:
    _, validation = broken
    assert validation.exercise_id == "broken-mul" and not validation.ok


def test_a_todo_left_behind_names_its_file_and_line(broken: tuple[Path, Validation]) -> None:
    folder, validation = broken
    line = len((folder / "mutants" / "swapped_locals.py").read_text(encoding="utf-8").splitlines())
    assert f"still to do: {folder / 'mutants' / 'swapped_locals.py'}, line {line}: say why the locals are swapped" \
        in failed(validation)


def test_a_solution_that_loses_points_names_the_seed_and_each_check_it_loses(broken: tuple[Path, Validation]) -> None:
    _, validation = broken
    (solution,) = [t for t in failed(validation) if t.startswith("the solution scores ")]
    assert solution.startswith("the solution scores 7/12 at seed 0; it loses 'a number on either side' (failed: "
                               "x.grad: expected ")
    assert "'two paths through a sum' (failed: " in solution
    assert "'a node times itself'" not in solution  # w * w: overwriting self.grad, then adding other's, is right


def test_a_starter_that_already_passes_is_refused(broken: tuple[Path, Validation]) -> None:
    assert "the starter, as handed out, already scores full marks" in failed(broken[1])


def test_a_mutant_the_probes_cannot_tell_from_the_solution_names_its_file(broken: tuple[Path, Validation]) -> None:
    assert "mutant no-mistake (no_mistake.py) keeps full marks at seed 0: the probes miss this mistake" in \
        failed(broken[1])


def test_two_mutants_that_behave_alike_cannot_both_be_named_as_themselves(broken: tuple[Path, Validation]) -> None:
    _, validation = broken
    # the tie is named by the first id, so one of the twins is refused, never both passed
    assert "mutant overwrite-not-accumulate (overwrite.py) is named as a-twin-of-overwrite at seed 0, not as itself" \
        in failed(validation)


def test_a_probe_at_rounding_noise_and_one_beyond_what_is_taught_are_named(broken: tuple[Path, Validation]) -> None:
    _, validation = broken
    (noise,) = [t for t in failed(validation) if t.startswith("probe 'a tiny product': small is expected ")]
    assert "at seed 0, rounding noise (atol is 1e-09): a check of it cannot tell right from wrong" in noise
    (untaught,) = [t for t in failed(validation) if t.startswith("probe 'a difference'")]
    assert untaught.startswith("probe 'a difference' calls __sub__, which exercise broken-mul does not teach")


def test_what_was_not_broken_still_passes(broken: tuple[Path, Validation]) -> None:
    ok = passed(broken[1])
    assert any(t.startswith("oracles agree on 8 probes x 1 seeds") for t in ok)
    for mistake in ("missing-upstream-factor", "output-in-slope", "swapped-locals"):
        assert any(t.startswith(f"mutant {mistake} loses points at every seed") and t.endswith("named as itself")
                   for t in ok), mistake
    # the seven breaks above, each once; and, the starter being the solution, it teaches nothing, so the probes that
    # give * a plain number ask what no correct engine of two-node * would have
    assert len([t for t in failed(broken[1]) if "__mul__(number)" not in t]) == 7
    assert len([t for t in failed(broken[1]) if "__mul__(number)" in t]) == 4


@pytest.fixture(scope="module")
def thin(tmp_path_factory: pytest.TempPathFactory, sandbox: Sandbox) -> Validation:
    """Two mutants only, gradients declared against the wrong inputs, and a lesson printing a number wrong."""
    folder = copy_of_node_mul(tmp_path_factory.mktemp("thin"), "thin-mul", more_probes=LESSON_PROBE, more_points=1)
    for name in ("output_in_slope.py", "swapped_locals.py"):
        (folder / "mutants" / name).unlink()
    spec = folder / "exercise.yaml"
    text = spec.read_text(encoding="utf-8")
    assert text.count("gradients: {x.grad: a, y.grad: b}") == 1
    spec.write_text(text.replace("gradients: {x.grad: a, y.grad: b}", "gradients: {x.grad: b, y.grad: a}"),
                    encoding="utf-8")
    return validate(folder, sandbox)


def test_too_few_mutants_are_counted(thin: Validation) -> None:
    assert "2 mutants; the catalogue asks for at least 3" in failed(thin)


def test_a_gradient_declared_against_the_wrong_input_is_an_oracle_disagreement_naming_the_probe(
        thin: Validation) -> None:
    disagreements = [t for t in failed(thin) if t.startswith("oracles disagree: ")]
    assert disagreements and all(t.startswith("oracles disagree: seed 0, probe 'gradients under a factor': ")
                                 for t in disagreements)
    assert any("x.grad: central differences give " in t and "the reference engine" in t for t in disagreements)
    assert not any(t.startswith("oracles agree") for t in passed(thin))


def test_a_lessons_printed_number_is_checked_to_the_digits_it_shows(thin: Validation) -> None:
    assert "the lesson's out.value = 6 is reproduced (6.0)" in passed(thin)
    assert "the lesson's double = 12.5 is not reproduced: the reference gives 12.0" in failed(thin)


def test_validating_an_exercise_does_not_depend_on_what_was_validated_before(tmp_path: Path,
                                                                               sandbox: Sandbox) -> None:
    twin = copy_of_node_mul(tmp_path / "edited", "cache-twin")
    overwrite = (twin / "mutants" / "overwrite.py").read_text(encoding="utf-8")
    (twin / "mutants" / "twin.py").write_text(
        overwrite.replace("mistake: overwrite-not-accumulate", "mistake: a-twin-of-overwrite"), encoding="utf-8")
    assert not validate(twin, sandbox).ok  # the twins cannot both be named as themselves
    pristine = copy_of_node_mul(tmp_path / "pristine", "cache-twin")
    # the same exercise, a mutant fewer (an author who removed the twin, and validates again in the same session)
    assert failed(validate(pristine, sandbox)) == []


# ---- fairness: correct answers written another way (grader.course.fairness) ----------------------------------


def test_a_variant_that_loses_points_or_is_missing_fails_validate(tmp_path: Path, sandbox: Sandbox) -> None:
    folder = copy_of_node_mul(tmp_path / "unfair", "unfair-mul")
    shutil.copy(folder / "mutants" / "swapped_locals.py", folder / "variants" / "not_right.py")
    validation = validate(folder, sandbox)
    (found,) = [t for t in failed(validation) if t.startswith("variant not_right.py")]
    assert found.startswith("variant not_right.py is a correct answer, but scores ") and " at seed 0: it loses '" \
        in found
    assert "variant kahn_closures.py scores full marks (10), unnamed, at every seed (1)" in passed(validation)
    shutil.rmtree(folder / "variants")
    (none,) = failed(validate(folder, sandbox))
    assert none.startswith("no variants/: write at least one correct answer another way")


def copy_of_first_gradient(parent: Path, exercise_id: str) -> Path:
    folder = parent / exercise_id
    shutil.copytree(ROOT / "exercises" / "first-gradient", folder)
    spec = folder / "exercise.yaml"
    spec.write_text(spec.read_text(encoding="utf-8").replace("id: first-gradient", f"id: {exercise_id}"),
                    encoding="utf-8")
    return folder


def test_float32_where_it_is_ill_conditioned_or_cannot_be_run_fails_validate(tmp_path: Path,
                                                                            sandbox: Sandbox) -> None:
    folder = copy_of_first_gradient(tmp_path, "saturated-gradient")
    spec = folder / "exercise.yaml"
    text = spec.read_text(encoding="utf-8")
    saturating = "inputs: {x: {uniform: [1.5, 2.5]}, y: 0.0, w: positive, b: positive}"
    assert saturating in text
    spec.write_text(text.replace(saturating, "inputs: {x: {uniform: [8, 9]}, y: 0.0, w: {uniform: [1.6, 1.8]}, "
                                             "b: {uniform: [1, 2]}}"), encoding="utf-8")
    validation = validate(folder, sandbox)
    (ill,) = [t for t in failed(validation) if "ill-conditioned" in t]
    assert ill.startswith("probe 'a nearly saturated neuron': float32 is off by up to ")
    # a solution in torch's default float32 has no float64 to make float32: nothing calibrates the checks
    solution = folder / "solution.py"
    solution.write_text(solution.read_text(encoding="utf-8").replace(", dtype=torch.float64", ""), encoding="utf-8")
    assert any(t.startswith("precision: float32, but the solution names no float64")
               for t in failed(validate(folder, sandbox)))


def test_a_grading_that_ran_out_of_time_is_graded_once_more_and_the_second_stands(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A busy machine's wall clock is not the exercise's: validate grades again where a run stopped for
    time (the student's, or the grader's own run behind a name), and takes what the second grading finds."""
    from grader.course import validate
    from grader.judge.report import Cause, CheckResult, ExerciseResult, Graded

    def graded(kind: str, notes: tuple[str, ...] = ()) -> Graded:
        check = CheckResult(name="c", about="", status="failed" if kind != "passed" else "passed", score=0.0,
                            max_score=1.0, problem="", visibility="public", cause=Cause(kind))  # type: ignore[arg-type]
        return Graded(exercises=(ExerciseResult(id="e", title="e", checks=(check,)),), problems=(), output="",
                      output_truncated=False, notes=notes)

    exercise = load_exercise(ROOT / "exercises" / "node-mul" / "exercise.yaml")
    for first, second, calls in [
        (graded("timeout"), graded("wrong-value"), 2),
        (graded("wrong-value", ("The grader's own run of the known mistake m ran out of time twice.",)),
         graded("passed"), 2),
        (graded("wrong-value"), graded("passed"), 1),
    ]:
        answers = iter([first, second])
        asked: list[int] = []

        def fake(*_: object, answers: Any = answers, asked: list[int] = asked, **__: object) -> Graded:
            asked.append(1)
            return next(answers)  # type: ignore[no-any-return]

        monkeypatch.setattr(validate, "grade_submission", fake)
        result, _ = validate._grade(exercise, None, ROOT / "exercises" / "node-mul" / "solution.py", 0, ())  # type: ignore[arg-type]
        assert len(asked) == calls
        assert result == (second if calls == 2 else first).exercises[0]
