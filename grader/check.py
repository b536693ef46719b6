"""Compare what the submission observed with what the oracles expect, and award points."""

from __future__ import annotations

from grader.compare import compare, fmt, show
from grader.inputs import Inputs
from grader.oracle import Expected
from grader.report import CheckResult, ExerciseResult, ObservationResult, Status
from grader.sandbox import ProbeRun, RunResult
from grader.spec import Exercise, Probe
from grader.values import ErrorInfo

HIDDEN_FAILED = "This hidden check did not pass; its details are withheld."


def check_exercise(exercise: Exercise, inputs: tuple[Inputs, ...], expected: tuple[Expected, ...],
                   run: RunResult) -> ExerciseResult:
    problems = _problems(exercise, run)
    checks = tuple(
        _check(probe, probe_inputs, want, run, index)
        for index, (probe, probe_inputs, want) in enumerate(zip(exercise.probes, inputs, expected, strict=True))
    )
    return ExerciseResult(
        id=exercise.id,
        title=exercise.title,
        checks=checks,
        problems=problems,
        output=run.output,
        output_truncated=run.output_truncated,
        seconds=run.seconds,
    )


def _problems(exercise: Exercise, run: RunResult) -> tuple[str, ...]:
    if run.load_error is not None:
        return (f"Your file could not be loaded: {run.load_error.describe()}.",)
    if run.missing:
        return tuple(f"Your file does not define {text}; exercise {exercise.id} needs it." for text in run.missing)
    if run.stopped is not None:
        during = "" if run.stopped_at is None else f" during check '{exercise.probes[run.stopped_at].name}'"
        if run.stopped_at is None and not any(run.probes):
            during = " while loading your file"
        return (f"Your code {run.stopped}{during}. {run.advice} The checks it could not finish score 0.".replace(
            "  ", " "),)
    return ()


def _check(probe: Probe, inputs: Inputs, expected: Expected, run: RunResult, index: int) -> CheckResult:
    make = _Maker(probe, inputs)
    if expected.disagreements:
        return make("error", "The grader's oracles disagree on this check, so it cannot be scored: "
                    + "; ".join(expected.disagreements) + ". This is a bug in the exercise, not in your code: "
                    "please tell your instructor.")
    probe_run = run.probes[index]
    if probe_run is None:
        if run.stopped_at == index:
            return make("error", f"Your code {run.stopped} while running this check.")
        return make("error", _not_run(run), ran=False)
    if probe_run.error is not None:
        if probe_run.error.type_name == "NotImplementedError":
            return make("error", f"Not implemented yet: {probe_run.error.describe()}.")
        return make("error", f"Your code raised {probe_run.error.describe()}.")
    return _compare_observations(probe, expected, probe_run, make)


class _Maker:
    """Builds a probe's CheckResult, withholding the details of hidden checks."""

    def __init__(self, probe: Probe, inputs: Inputs) -> None:
        self.probe = probe
        self.inputs = tuple((name, str(value) if isinstance(value, int) else fmt(value))
                            for name, value in inputs.items())

    def __call__(self, status: Status, problem: str, score: float = 0.0,
                 observations: tuple[ObservationResult, ...] = (), *, ran: bool = True) -> CheckResult:
        probe = self.probe
        hidden = probe.visibility == "hidden"
        withhold = hidden or not ran  # a check that never ran has nothing to show
        return CheckResult(
            name=probe.name,
            about=probe.about if ran else "",
            status=status,
            score=round(score, 6),
            max_score=probe.points,
            problem=HIDDEN_FAILED if hidden and status == "failed" else problem,
            visibility=probe.visibility,
            inputs=() if withhold else self.inputs,
            code="" if withhold else probe.code,
            observations=() if withhold else observations,
        )


def _not_run(run: RunResult) -> str:
    if run.load_error is not None or run.missing:
        return "Not run: your file did not load (see above)."
    return "Not run: your code stopped before this check (see above)."


def _compare_observations(probe: Probe, expected: Expected, probe_run: ProbeRun, make: _Maker) -> CheckResult:
    want_all = expected.observations
    got_all = probe_run.observations
    if isinstance(want_all, ErrorInfo) or got_all is None:
        raise ValueError("observations are compared only when both sides have them")
    observations = []
    for label, want in want_all.items():
        got = got_all.get(label)
        if got is None:
            observations.append(ObservationResult(label=label, expected=show(want), got="nothing",
                                                  ok=False, problem="nothing was observed"))
            continue
        problem = compare(want, got, probe.tolerance)
        observations.append(ObservationResult(label=label, expected=show(want), got=show(got),
                                              ok=problem is None, problem=problem or ""))
    wrong = [o for o in observations if not o.ok]
    if not wrong:
        return make("passed", "", probe.points, tuple(observations))
    score = probe.points * (len(observations) - len(wrong)) / len(observations) if probe.partial else 0.0
    return make("failed", "; ".join(f"{o.label}: {o.problem}" for o in wrong) + ".", score, tuple(observations))
