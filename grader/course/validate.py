"""Prove an exercise sound: its oracles agree, its solution scores full
marks, every mutant loses points; and fair (grader.course.fairness):
every correct answer of its variants/ scores full marks, unnamed."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from grader.core.compare import compare, fmt_points
from grader.core.errors import GraderError
from grader.core.exercise import Device, Exercise
from grader.core.values import Array, ErrorInfo, Number, Value
from grader.course.fairness import float32_calibrated, variants_hold
from grader.course.printed import printed_numbers
from grader.course.scaffold import todos
from grader.judge.course_ops import load_ops, prove, proven_line
from grader.judge.devices import ALL_DEVICES, cuda_available
from grader.judge.diagnose.exercise_code import exercise_code
from grader.judge.diagnose.slips import to_write
from grader.judge.grading import ExpectedCache, grade_submission
from grader.judge.library.repositories import submission_of
from grader.judge.mistake_runs import MutantCache
from grader.judge.oracle import expected_values
from grader.judge.report import ExerciseResult
from grader.judge.uses import BASE, INTERFACE, allowed, probe_uses
from grader.run.inputs import draw_inputs
from grader.run.read.load import Submission
from grader.run.sandbox import Sandbox

MIN_MUTANTS = 3
#: an expected value this many times atol or closer to zero (but not zero) is rounding noise
NOISE_SCALE = 10
ORACLES = {
    "scalar": "the reference engine and torch's float64 engine",
    "torch": "the solution on the CPU in float64",
    "tensor": "the numpy reference tensor engine and its torch float64 twin",
    "library": "the course's reference package",
}


@dataclass(frozen=True, slots=True)
class Finding:
    ok: bool
    text: str


@dataclass(frozen=True, slots=True)
class Validation:
    exercise_id: str
    findings: tuple[Finding, ...]

    @property
    def ok(self) -> bool:
        return all(f.ok for f in self.findings)


def validate_exercise(
    exercise: Exercise,
    sandbox: Sandbox,
    seeds: Sequence[int],
    devices: Sequence[Device] = ALL_DEVICES,
    variant_seeds: Sequence[int] | None = None,
) -> Validation:
    """`variant_seeds`: the seeds each correct answer of variants/
    is graded at (grader.course.fairness); `seeds` where None."""
    # The mutants' runs and the expected values are shared by this
    # exercise's gradings only: another exercise of the same id (an author's
    # edited copy, validated again in one process) has other mutants.
    _MUTANTS.clear()
    _EXPECTED.clear()

    def grade(submission: Submission, seed: int) -> tuple[ExerciseResult, tuple[str, ...]]:
        return _grade(exercise, sandbox, submission, seed, devices)

    findings = [
        *[Finding(False, f"still to do: {todo}") for todo in todos(exercise)],
        *_course_ops_proven(exercise),
        *_exercise_code_loads(exercise),
        *_oracles_agree(exercise, seeds),
        *[Finding(*found) for found in float32_calibrated(exercise, seeds)],
        *_cuda_agrees(exercise, seeds, devices),
        *_tensor_twin_on_cuda(exercise, seeds, devices),
        *_array_probe_rules(exercise),
        *degenerate_probes(exercise, seeds),
        *[Finding(*found) for found in printed_numbers(exercise)],
        *_probes_use_what_is_taught(exercise),
        _solution_full_marks(exercise, sandbox, seeds, devices),
        _starter_incomplete(exercise, sandbox, seeds[0], devices),
        *_mutants_lose_points(exercise, sandbox, seeds, devices),
        *[Finding(*found) for found in variants_hold(exercise, grade, variant_seeds or seeds)],
    ]
    return Validation(exercise.id, tuple(findings))


def _oracles_agree(exercise: Exercise, seeds: Sequence[int]) -> list[Finding]:
    problems = []
    for seed in seeds:
        expected_all = expected_values(exercise, draw_inputs(exercise, seed), seed=seed)
        for probe, expected in zip(exercise.probes, expected_all, strict=True):
            problems += [f"seed {seed}, probe '{probe.name}': {d}" for d in expected.disagreements]
    if problems:
        return [Finding(False, f"oracles disagree: {p}") for p in problems]
    counted = sum(len(p.gradients) for p in exercise.probes)
    return [
        Finding(
            True,
            f"oracles agree on {len(exercise.probes)} probes x {len(seeds)} seeds "
            f"({ORACLES[exercise.engine]}; {counted} gradients confirmed by central differences)",
        )
    ]


def _exercise_code_loads(exercise: Exercise) -> list[Finding]:
    """The exercise's own diagnosis (diagnosis.py, grader.judge.diagnose.exercise_code) loads and
    declares what it may: a broken one would cost its diagnoses at every grading."""
    try:
        exercise_code(exercise)
    except GraderError as exc:
        return [Finding(False, str(exc))]
    return []


def _course_ops_proven(exercise: Exercise) -> list[Finding]:
    """Each operation the course adds to the reference engine (grader.judge.course_ops) agrees with
    torch float64 and central differences, before the expected values of any probe rest on it."""
    try:
        ops = load_ops(exercise.course_ops)
    except GraderError as exc:
        return [Finding(False, str(exc))]
    if not ops:
        return []
    problems: list[str] = []
    for op in ops:
        problems += prove(op)
    return [Finding(False, f"an added operation is wrong: {p}") for p in problems] or [
        Finding(True, proven_line(ops))
    ]


def _probes_use_what_is_taught(exercise: Exercise) -> list[Finding]:
    """An engine exercise's probes call only what it teaches and the base (grader.judge.uses):
    a correct engine that lacks an operation the exercise does not teach loses nothing."""
    if not exercise.kind.operations:
        return []
    may = allowed(exercise)
    found = [
        Finding(
            False,
            f"probe '{probe.name}' calls {', '.join(sorted(extra))}, which exercise {exercise.id} "
            f"does not teach: a correct engine without it would lose the check (use what the "
            f"exercise teaches and {', '.join(sorted(BASE))} of two nodes; wrap a plain number "
            f"the probe passes in the class, {exercise.contract.class_name}(2.0))",
        )
        for probe in exercise.probes
        if (extra := probe_uses(exercise, probe) - may)
    ]
    added = tuple(op.name for op in load_ops(exercise.course_ops))
    taught = ", ".join(name for name in (*INTERFACE, *added) if name in to_write(exercise.starter))
    return found or [
        Finding(
            True,
            f"every probe calls only what the exercise teaches ({taught}) and the base "
            f"(+ and * of two nodes, backward())",
        )
    ]


def degenerate_probes(exercise: Exercise, seeds: Sequence[int]) -> list[Finding]:
    """A probe that cannot tell right from wrong: a value at rounding-noise
    scale, or a declared gradient that is zero up to rounding at every seed
    (an output that cancels, such as (k / x) * (x / m), which is k / m).

    An exact zero is a value: a closed relu gate's gradient tells a gate that
    leaks; a probe lists what is zero by design up to rounding in `near_zero`.
    """
    noise: dict[tuple[str, str], str] = {}  # (probe, label) -> the first noisy value, and where
    # declared gradients: within the noise scale, per seed
    near_zero: dict[tuple[str, str], list[bool]] = {}
    for seed in seeds:
        expected_all = expected_values(
            exercise, draw_inputs(exercise, seed), seed=seed, torch_engine=False
        )
        for probe, expected in zip(exercise.probes, expected_all, strict=True):
            if isinstance(expected.observations, ErrorInfo):
                continue
            scale = NOISE_SCALE * probe.tolerance.atol
            declared = {label for label, _ in probe.gradients}
            for label, value in expected.observations.items():
                numbers = _numbers(value)
                if label in probe.near_zero or not numbers:
                    continue
                # an array is noise as a whole: one small element among others is a value like any
                if (
                    all(abs(v) <= scale for v in numbers)
                    and any(numbers)
                    and (probe.name, label) not in noise
                ):
                    noise[probe.name, label] = f"{next(v for v in numbers if v):.6g} at seed {seed}"
                if label in declared:
                    near_zero.setdefault((probe.name, label), []).append(
                        all(abs(v) <= scale for v in numbers)
                    )
    found = []
    for (name, label), shown in noise.items():
        atol = next(p.tolerance.atol for p in exercise.probes if p.name == name)
        if all(near_zero.get((name, label), [False])):
            found.append(
                Finding(
                    False,
                    f"probe '{name}': the declared gradient {label} is zero up to rounding at "
                    f"every seed (expected {shown}): `output` does not depend on that input, "
                    f"as in (k / x) * (x / m), which is k / m; change the code so that it does",
                )
            )
        else:
            found.append(
                Finding(
                    False,
                    f"probe '{name}': {label} is expected {shown}, rounding noise (atol is "
                    f"{atol:g}): a check of it cannot tell right from wrong; change the inputs or "
                    f"the code so that the value is well away from 0, or exactly 0",
                )
            )
    return found


def _numbers(value: Value) -> list[float]:
    if isinstance(value, Number):
        return [value.value]
    if isinstance(value, Array) and value.dtype.startswith("float"):
        return list(value.data)
    return []


def _cuda_agrees(
    exercise: Exercise, seeds: Sequence[int], devices: Sequence[Device]
) -> list[Finding]:
    """On a GPU machine, the expected values computed
    on CUDA match the CPU's, within the CUDA tolerance."""
    on_cuda = [i for i, p in enumerate(exercise.probes) if "cuda" in p.devices]
    if not on_cuda or "cuda" not in devices:
        return []
    if not cuda_available():
        count = f"{len(on_cuda)} probe{'s' if len(on_cuda) != 1 else ''}"
        return [Finding(True, f"{count} also run on CUDA; not checked here (no CUDA)")]
    problems = []
    for seed in seeds:
        inputs = draw_inputs(exercise, seed)
        cpu = expected_values(exercise, inputs, seed=seed)
        cuda = expected_values(exercise, inputs, seed=seed, device="cuda")
        for i in on_cuda:
            want, got = cpu[i].observations, cuda[i].observations
            if isinstance(want, ErrorInfo) or isinstance(got, ErrorInfo):
                continue
            for label, value in want.items():
                problem = compare(value, got[label], exercise.probes[i].cuda_tolerance)
                if problem:
                    problems.append(
                        f"seed {seed}, probe '{exercise.probes[i].name}', {label}: {problem}"
                    )
    if problems:
        return [Finding(False, f"CUDA disagrees with the CPU: {p}") for p in problems]
    return [
        Finding(True, f"CUDA agrees with the CPU on {len(on_cuda)} probes x {len(seeds)} seeds")
    ]


def _tensor_twin_on_cuda(
    exercise: Exercise, seeds: Sequence[int], devices: Sequence[Device]
) -> list[Finding]:
    """A tensor exercise's torch twin, on CUDA where
    there is one, agrees with the numpy reference."""
    if exercise.kind.oracle != "tensor" or "cuda" not in devices or not cuda_available():
        return []
    problems = []
    for seed in seeds:
        inputs = draw_inputs(exercise, seed)
        on_cuda = expected_values(exercise, inputs, seed=seed, device="cuda")
        for probe, expected in zip(exercise.probes, on_cuda, strict=True):
            problems += [f"seed {seed}, probe '{probe.name}': {d}" for d in expected.disagreements]
    if problems:
        return [Finding(False, f"on CUDA: {p}") for p in problems]
    return [
        Finding(
            True,
            f"the torch twin on CUDA agrees with the reference on {len(exercise.probes)} probes x "
            f"{len(seeds)} seeds",
        )
    ]


def _array_probe_rules(exercise: Exercise) -> list[Finding]:
    """Tensor probes use shapes that expose axis
    mistakes: no two dimensions above 1 equal, no size 0.

    A size-1 dimension is a broadcast axis; a square matrix on purpose says `equal_dims: true`.
    """
    if not exercise.kind.shaped:
        return []
    problems = []
    for probe in exercise.probes:
        for spec in probe.inputs:
            # an exercise-wide input: said once
            repeated = spec.shared and probe is not exercise.probes[0]
            if spec.kind != "tensor" or spec.dtype == "int64" or spec.equal_dims or repeated:
                continue
            big = [n for n in spec.shape if n > 1]
            if 0 in spec.shape or len(big) != len(set(big)) or not big:
                problems.append(
                    f"probe '{probe.name}', input {spec.name}: shape {list(spec.shape)}"
                )
    if problems:
        return [
            Finding(
                False,
                "a tensor shape hides axis mistakes (two equal dimensions, a 0, or one element): "
                f"{p}",
            )
            for p in problems
        ]
    return [
        Finding(
            True, "every tensor input's dimensions differ from each other (broadcast axes aside)"
        )
    ]


#: what each mutant gives and the expected values, shared by
#: every grading of one exercise's validation (cleared for each)
_MUTANTS: MutantCache = {}
_EXPECTED: ExpectedCache = {}


def _grade(
    exercise: Exercise,
    sandbox: Sandbox,
    path: Path | Submission,
    seed: int,
    devices: Sequence[Device],
) -> tuple[ExerciseResult, tuple[str, ...]]:
    """The exercise's result, and the problems of the file as a whole (it did not load...).

    A grading where a run ran out of time is graded once more: validate judges the exercise, and a
    busy machine's wall clock (another job, a CI runner's neighbours) is not the exercise's. The
    second grading stands, whatever it finds: code that runs out of time runs out again."""
    submission = path if isinstance(path, Submission) else submission_of(exercise, path)
    for _ in range(2):
        graded = grade_submission(
            sandbox,
            submission,
            [exercise],
            seed=seed,
            devices=devices,
            cache=_EXPECTED,
            mutant_cache=_MUTANTS,
        )
        result = graded.exercises[0]
        if not _ran_out_of_time(result, graded.notes):
            break
    return result, graded.problems + result.problems


#: how a check reads a run stopped by its time limits (grader.judge.check)
_OUT_OF_TIME = frozenset({"timeout", "cpu-time"})


def _ran_out_of_time(result: ExerciseResult, notes: Sequence[str]) -> bool:
    """Whether the student's run, or one of the grader's own runs behind a name (a localization,
    a known mistake's run), stopped for time: the report's causes, and its notes on the latter."""
    for check in result.checks:
        if check.cause.kind in _OUT_OF_TIME:
            return True
    return any("ran out of time" in note for note in notes)


def _score(result: ExerciseResult) -> str:
    return f"{fmt_points(result.score)}/{fmt_points(result.max_score)}"


def _solution_full_marks(
    exercise: Exercise, sandbox: Sandbox, seeds: Sequence[int], devices: Sequence[Device]
) -> Finding:
    if exercise.solution is None:
        return Finding(
            False,
            "no solution: a released pack cannot be validated; validate the course's exercises",
        )
    for seed in seeds:
        result, problems = _grade(exercise, sandbox, exercise.solution, seed, devices)
        if result.score < result.max_score:
            lost = [
                f"'{c.name}' ({c.status}: {c.message})"
                for c in result.checks
                if c.status not in ("passed", "skipped")
            ]
            return Finding(
                False,
                f"the solution scores {_score(result)} at seed {seed}; "
                f"it loses {'; '.join(lost)} {' '.join(problems)}",
            )
    return Finding(
        True, f"the solution scores full marks ({fmt_points(exercise.points)}) at every seed"
    )


def _starter_incomplete(
    exercise: Exercise, sandbox: Sandbox, seed: int, devices: Sequence[Device]
) -> Finding:
    result, problems = _grade(exercise, sandbox, exercise.starter, seed, devices)
    if result.score >= result.max_score:
        return Finding(False, "the starter, as handed out, already scores full marks")
    says = (
        problems[0]
        if problems
        else next((c.problem for c in result.checks if c.status in ("failed", "error")), "")
    )
    return Finding(True, f"the starter scores {_score(result)}; a student reads: {says}")


def _mutants_lose_points(
    exercise: Exercise, sandbox: Sandbox, seeds: Sequence[int], devices: Sequence[Device]
) -> list[Finding]:
    findings = []
    if len(exercise.mutants) < MIN_MUTANTS:
        findings.append(
            Finding(
                False,
                f"{len(exercise.mutants)} mutants; the catalogue asks for at least {MIN_MUTANTS}",
            )
        )
    for mutant in exercise.mutants:
        results = [_grade(exercise, sandbox, mutant.path, seed, devices)[0] for seed in seeds]
        scores = [r.score for r in results]
        worst = max(scores)
        if worst >= exercise.points:
            findings.append(
                Finding(
                    False,
                    f"mutant {mutant.mistake} ({mutant.path.name}) keeps full marks at "
                    f"seed {seeds[scores.index(worst)]}: the probes miss this mistake",
                )
            )
            continue
        known = frozenset(m.mistake for m in exercise.mutants)
        misnamed = [
            (seed, _named(r, known))
            for seed, r in zip(seeds, results, strict=True)
            if _named(r, known) != {mutant.mistake}
        ]
        if misnamed:
            seed, names = misnamed[0]
            findings.append(
                Finding(
                    False,
                    f"mutant {mutant.mistake} ({mutant.path.name}) is named as "
                    f"{', '.join(sorted(names)) or 'nothing'} at seed {seed}, not as itself",
                )
            )
            continue
        findings.append(
            Finding(
                True,
                f"mutant {mutant.mistake} loses points at every seed (at most "
                f"{fmt_points(worst)}/{fmt_points(exercise.points)}) and is named as itself",
            )
        )
    return findings


def _named(result: ExerciseResult, known: frozenset[str]) -> set[str]:
    """The known mistakes a graded submission's failed checks name: by a
    mutant's values, or, where the mistake shows only as an error (which no
    mutant's values can name), by the error itself under the mistake's id."""
    return {
        c.diagnosis.mistake
        for c in result.checks
        if c.diagnosis is not None
        and (
            c.diagnosis.kind == "known-mistake"
            or (c.diagnosis.kind == "pattern" and c.diagnosis.mistake in known)
        )
    }
