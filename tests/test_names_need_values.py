"""No rule name without values, one vocabulary for student and instructor, and a timeout that costs its limit.

What classes hand in: the starters as shipped (the course's and the released pack's), half-done
code, files that raise, loop or exit. A check that raised, stopped or never ran has no values to
compare with a mutant's or to localize: it names only what its error states (a method missing or
not written yet, a signature, a name undefined), never a slope. A `*-fix` starter is the bug to
fix: it names that bug and nothing else. A student checking with the released pack reads the same
names and hints as the instructor's grade of the same file and seed. And code that runs out of time
is not run again to localize a rule: a 1 s limit costs one run of the code, not two.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from grader.course.pack.release import release
from grader.judge.catalog import Catalog
from grader.judge.diagnose.hints import KNOWN_ERRORS
from grader.judge.diagnose.named_errors import STATED
from grader.judge.grading import ExpectedCache, grade_submission
from grader.judge.mistake_runs import MutantCache
from grader.judge.report import CheckResult, ExerciseResult
from grader.run.read.load import load_submission
from grader.run.sandbox import Sandbox

ROOT = Path(__file__).resolve().parent.parent
COURSE = Catalog(ROOT / "exercises")
#: each *-fix exercise's starter, and the one name its bug has
FIX_BUGS = {"detach-fix": "numpy-needs-detach", "no-grad-fix": "leaf-in-place",
            "scalar-loss-fix": "non-scalar-backward", "zero-grad-fix": "gradients-never-cleared"}
#: what an error states by itself, confirmed by the syntax tree or torch's own message
FROM_ERRORS = STATED | {ident for ident, *_ in KNOWN_ERRORS}
#: samples graded as a student with the pack and by the instructor: numbers, localization, weak evidence, errors
SAME_NAMES = ["node-mul/swapped_slopes.py", "node-mul/overwrite.py", "node-sub/slopes_copied_from_add.py",
              "node-backward/bfs_order.py", "mistakes/node-mul__second_operand_overwritten.py",
              "mistakes/node-sigmoid__slope_from_input.py", "mistakes/tiny-engine__division_denominator_sign.py",
              "mistakes/custom-sigmoid__ignores_grad_output.py", "mistakes/detach-fix__clone_instead_of_detach.py",
              "node-relu/relu_as_function.py", "node-sigmoid/overflow.py"]


def _expect(sample: Path) -> dict[str, Any]:
    return dict(yaml.safe_load(sample.with_suffix(".expect.yaml").read_text(encoding="utf-8")))


def _exercise_of(sample: Path) -> str:
    named = _expect(sample).get("exercise")
    if named:
        return str(named)
    return sample.name.split("__")[0] if sample.parent.name == "mistakes" else sample.parent.name


def _erroring_samples() -> list[Path]:
    """Every sample whose expected outcome has a check that errors (raises, stops or never runs)."""
    found = []
    for expect_path in sorted((ROOT / "submissions").glob("*/*.expect.yaml")):
        sample = expect_path.with_name(expect_path.name.removesuffix(".expect.yaml") + ".py")
        expect = yaml.safe_load(expect_path.read_text(encoding="utf-8"))
        if not sample.is_file() or expect.get("exit_code") == 2 or "assignment" in expect:
            continue
        if "error" in (expect.get("statuses") or {}).values():
            found.append(sample)
    return found


#: the course's mutants' runs, shared by the release and the instructor's grades (they are the same runs)
COURSE_MUTANTS: MutantCache = {}


@pytest.fixture(scope="module")
def pack(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("pack")
    release(COURSE, out, [e.id for e in COURSE.load_all()], [], mutant_cache=COURSE_MUTANTS)
    return out


@pytest.fixture(scope="module")
def grader() -> Any:
    expected: ExpectedCache = {}
    mutants: dict[str, MutantCache] = {str(COURSE.root): COURSE_MUTANTS}
    with Sandbox(lean=True, hide=[ROOT / "exercises"]) as sandbox:
        def grade(path: Path, catalog: Catalog, exercise_id: str, time_limit: float | None = None) -> ExerciseResult:
            exercise = catalog.load(exercise_id)
            graded = grade_submission(sandbox, load_submission(path), [exercise], seed=0, devices=("cpu",),
                                      time_limit=time_limit, cache=expected if catalog is COURSE else None,
                                      mutant_cache=mutants.setdefault(str(catalog.root), {}))
            return graded.exercises[0]
        yield grade


def _named(check: CheckResult) -> str | None:
    d = check.diagnosis
    return None if d is None or d.kind == "unknown" else d.mistake


def _misnamed_error(check: CheckResult, engine: str, right: list[str]) -> str | None:
    """What is wrong with the name an errored check gives, if anything."""
    d = check.diagnosis
    if check.status != "error" or d is None or d.kind == "unknown":
        return None
    if d.kind == "localized":
        return f"localized {d.mistake} on a check without values"
    if d.kind == "pattern" and (d.mistake in FROM_ERRORS or (engine == "tensor" and d.evidence.startswith(
            ("the code raised", "withheld")))):
        return None  # what the error states (a tensor exercise's shapes, in numpy's words)
    if engine == "torch" and d.kind == "known-mistake" and d.mistake in right:
        return None  # torch's own error, and the code does what the mistake does (grader.judge.diagnose.matching)
    return f"{d.kind} {d.mistake} on a check that raised, stopped or never ran"


@pytest.mark.slow
@pytest.mark.parametrize("where", ["course", "pack"])
def test_starters_name_only_what_is_not_written_yet_and_fix_starters_only_their_bug(
        grader: Any, pack: Path, where: str) -> None:
    catalog = COURSE if where == "course" else Catalog(pack / "exercises")
    wrong = []
    for exercise in COURSE.load_all():
        starter = exercise.starter if where == "course" else pack / f"{exercise.id}.py"
        result = grader(starter, catalog, exercise.id)
        names = {n for c in result.checks if (n := _named(c)) is not None}
        if exercise.id in FIX_BUGS:
            if names != {FIX_BUGS[exercise.id]}:
                wrong.append(f"{exercise.id}: the starter names {sorted(names)}, not only {FIX_BUGS[exercise.id]}")
        elif names - {"not-written-yet"}:
            wrong.append(f"{exercise.id}: the untouched starter names {sorted(names - {'not-written-yet'})}")
    assert wrong == []


@pytest.mark.slow
def test_no_check_that_errors_gets_a_name_from_values(grader: Any) -> None:
    wrong = []
    for sample in _erroring_samples():
        exercise_id = _exercise_of(sample)
        expect = _expect(sample)
        args = expect.get("args", [])
        limit = float(args[args.index("--time-limit") + 1]) if "--time-limit" in args else None
        result = grader(sample, COURSE, exercise_id, limit)
        for check in result.checks:
            problem = _misnamed_error(check, COURSE.load(exercise_id).engine, list(expect.get("mistake", [])))
            if problem is not None:
                wrong.append(f"{sample.relative_to(ROOT)} '{check.name}': {problem}")
    assert wrong == []


@pytest.mark.slow
def test_a_student_with_the_pack_reads_the_instructors_names_and_hints(grader: Any, pack: Path) -> None:
    released = Catalog(pack / "exercises")
    differ = []
    for name in SAME_NAMES:
        sample = ROOT / "submissions" / name
        exercise_id = _exercise_of(sample)
        theirs = {c.name: c.diagnosis for c in grader(sample, COURSE, exercise_id).checks if c.visibility == "public"}
        ours = {c.name: c.diagnosis for c in grader(sample, released, exercise_id).checks}
        assert set(ours) == set(theirs)
        for check, diagnosis in theirs.items():
            mine = ours[check]
            said = (diagnosis.kind, diagnosis.mistake, diagnosis.hint) if diagnosis else None
            read = (mine.kind, mine.mistake, mine.hint) if mine else None
            if said != read:
                differ.append(f"{name} '{check}': the instructor's grade says {said}, the pack's {read}")
    assert differ == []
    assert any(c.diagnosis is not None and c.diagnosis.kind == "known-mistake"
               for c in grader(ROOT / "submissions" / SAME_NAMES[0], released, "node-mul").checks)


def test_code_that_runs_out_of_time_is_run_once_not_again_to_localize(grader: Any,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    # wrong values before the loop would ask for localization, whose probes loop too: a second limit
    sample = ROOT / "submissions" / "node-mul" / "loops_on_bigger_graphs.py"
    launched: list[str] = []

    def counting(method: Any) -> Any:
        def counted(self: Sandbox, submission: Any, groups: Any, **options: Any) -> Any:
            launched.append(submission.name)
            return method(self, submission, groups, **options)
        return counted

    # the student's public and hidden checks run in one child (launch_two_parts); a localization would be a launch
    monkeypatch.setattr(Sandbox, "launch", counting(Sandbox.launch))
    monkeypatch.setattr(Sandbox, "launch_two_parts", counting(Sandbox.launch_two_parts))
    result = grader(sample, COURSE, "node-mul", 1.0)
    assert launched.count(sample.name) == 1
    statuses = {c.name: c.status for c in result.checks}
    assert statuses["gradients under a factor"] == "failed" and statuses["a number on either side"] == "error"
    assert {_named(c) for c in result.checks if c.status == "failed"} == {"swapped-locals"}
