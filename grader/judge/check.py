"""Compare what the submission observed with what the oracles expect, and award points."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass

from grader.core.compare import compare, show
from grader.core.exercise import Device, Exercise, Probe
from grader.core.numeric import Tolerance
from grader.core.values import ErrorInfo, Value
from grader.judge.diagnose.hints import hint_for
from grader.judge.names import Definitions, probe_reads
from grader.judge.oracle import Expected
from grader.judge.plain import plain, plain_got, plain_input
from grader.judge.precision import relative_difference
from grader.judge.report import Cause, CauseKind, CheckResult, ExerciseResult, ObservationResult, Status
from grader.judge.rules import Violation
from grader.judge.run_rules import rule_breaks
from grader.run.inputs import Inputs, show_input
from grader.run.observed import GroupRun, ProbeRun, RunResult, Stop

HIDDEN_FAILED = "This hidden check did not pass; its details are withheld."
#: a hidden check that did not finish: what stopped it (an exception's type, line and message, a timeout
#: during it) is the submission's to choose, and could carry the check's inputs out
HIDDEN_ERROR = "This hidden check did not finish: your code raised an error or stopped there; its details are withheld."
HIDDEN_GRADER_ERROR = ("The grader failed while running this hidden check; its details are withheld. This is not your "
                       "fault: tell your instructor.")


@dataclass(frozen=True, slots=True)
class ExerciseRun:
    """A child's run of the submission, and this exercise's part of it."""

    run: RunResult
    group: GroupRun


#: a device's run, or why it did not happen ("CUDA is not available on this machine")
Run = ExerciseRun | str


def check_exercise(exercise: Exercise, inputs: tuple[Inputs, ...], expected: tuple[Expected, ...],
                   runs: Mapping[Device, Run], violations: tuple[Violation, ...] = (),
                   defined: Definitions | None = None) -> ExerciseResult:
    """One check per probe and device; a probe's points are shared by the devices that ran it.

    `defined`: what the submission's syntax tree defines, to say what was found where a name is missing.
    """
    ran = {device: run for device, run in runs.items() if isinstance(run, ExerciseRun)}
    several = len(ran) > 1
    problems = [f"Your code breaks a rule of exercise {exercise.id}: {v.describe()}. No check is scored until "
                "it is fixed." for v in violations]
    for device, run in ran.items():
        problems += [f"On {device.upper()}: {p}" if several else p
                     for p in _problems(exercise, run.group, run.run, defined)]
    checks: list[CheckResult] = []
    for index, probe in enumerate(exercise.probes):
        per_device = [_ruled(exercise, probe, _device_check(probe, inputs[index], expected[index], device,
                                                            runs.get(device), index, exercise.engine),
                             runs.get(device), index)
                      for device in probe.devices]
        counted = [c for c in per_device if c.status != "skipped"]
        for check in per_device:
            share = probe.points / len(counted) if check.status != "skipped" else 0.0
            checks.append(dataclasses.replace(check, max_score=share, score=round(check.score * share, 6)))
    if violations:
        checks = [_not_scored(c) for c in checks]
    return ExerciseResult(id=exercise.id, title=exercise.title, checks=tuple(checks), problems=tuple(problems),
                          hidden_points=exercise.hidden_points)


def _problems(exercise: Exercise, group: GroupRun, run: RunResult, defined: Definitions | None) -> list[str]:
    """What went wrong for this exercise alone; the submission's own troubles are the report's."""
    found = _found(exercise, defined) if any(text.endswith("found nothing") for text in group.missing) else ""
    problems = [f"Your {_what(run)} does not define {text}; exercise {exercise.id}'s checks that use it are not "
                f"run.{found}"
                for text in group.missing]
    stop = group.stop
    if stop is not None:
        advice = f" {stop.advice}" if stop.advice else ""
        during = f"during check '{exercise.probes[group.stopped_at].name}'" if group.stopped_at is not None \
            else f"while running exercise {exercise.id}'s checks"
        problems.append(f"Your code {stop.text} {during}.{advice} The checks it could not finish score 0."
                        if stop.kind != "grader" else f"The grader failed {during}: {stop.text}. {stop.advice}")
    return problems


def run_problems(run: RunResult, *, first: bool = True, engine: str = "torch") -> list[str]:
    """What went wrong with the submission as a whole in one run: loading, failing cells, stopping early.

    A notebook runs once per set of imports its exercises allow: in any run but the first, a cell that
    stopped only because it used a module that exercise does not allow is noted, not a problem.
    """
    problems = []
    for error in run.cell_errors:
        if not first and error.type_name == "ImportError" and "is not available in exercise" in error.message:
            continue
        hint = hint_for(error, engine)
        if run.kind == "python":
            text = f"Your file could not be loaded: {error.describe()}."
        else:
            text = f"A cell raised {error.describe()}; grading went on with the cells after it."
        problems.append(text + (f" Hint: {hint}" if hint else ""))
    stop = run.stop
    if stop is not None:
        where = f" while running {run.stopped_in_cell}" if run.stopped_in_cell and run.kind == "notebook" else \
            (" while loading your file" if not run.loaded else "")
        advice = f" {stop.advice}" if stop.advice else ""
        problems.append(f"Your code {stop.text}{where}.{advice} The checks it could not finish score 0."
                        if stop.kind != "grader" else f"The grader failed{where}: {stop.text}. {stop.advice}")
    return problems


def _found(exercise: Exercise, defined: Definitions | None) -> str:
    """What the file defines instead, and what the exercise reads: a class under another name is easy to fix."""
    if defined is None or not (defined.classes or defined.functions):
        return ""
    wanted = [f"{name}(...)" for name, _ in exercise.defines]
    # the attributes observed belong to the exercise's own objects only where probes build them (Node(a), Dual(a, 1.0))
    built = any(f"{name}(" in p.code for name, kind in exercise.defines if kind == "class" for p in exercise.probes)
    reads = [f".{attr}" for attr in probe_reads(tuple(o for p in exercise.probes for _, o in p.observe))] if built \
        else []
    names = [f"`{name}`" for name in wanted + reads]
    listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
    return f" It defines {defined.describe()}; this exercise reads {listed}."


def _what(run: RunResult) -> str:
    return "notebook" if run.kind == "notebook" else "file"


def _device_check(probe: Probe, inputs: Inputs, expected: Expected, device: Device, run: Run | None,
                  index: int, engine: str) -> CheckResult:
    """A check scored out of 1; the caller scales it to the probe's points for this device."""
    make = _Maker(probe, inputs, device)
    if run is None or isinstance(run, str):
        return make("skipped", f"Skipped: {run or 'not requested'}.", ran=False, cause=Cause("skipped"))
    if expected.disagreements:
        return make("error", "The grader's oracles disagree on this check, so it cannot be scored: "
                    + "; ".join(expected.disagreements) + ". This is a bug in the exercise, not in your code: "
                    "please tell your instructor.", cause=Cause("grader", "the oracles disagree"))
    probe_run = run.group.probes[index]
    if probe_run is None:
        stop = run.group.stop
        if run.group.stopped_at == index and stop is not None:
            return make("error", f"Your code {stop.text} while running this check." if stop.kind != "grader"
                        else f"The grader failed while running this check: {stop.text}. {stop.advice}",
                        cause=stop_cause(stop))
        needs = run.group.needs[index] if index < len(run.group.needs) else ()
        if needs:
            names = ", ".join(f"`{n}`" for n in needs)
            return make("error", f"Not run: it needs {names}, which your {_what(run.run)} does not define.",
                        ran=False, cause=Cause("missing-name", ", ".join(needs)))
        return make("error", _not_run(run), ran=False, cause=_not_run_cause(run))
    if probe.raises is not None:
        return _check_raised(probe, probe_run, make)
    if probe_run.error is not None:
        return make("error", _error_text(probe_run.error, engine, hidden=probe.visibility == "hidden"),
                    cause=error_cause(probe_run.error))
    tolerance = probe.cuda_tolerance if device == "cuda" else probe.tolerance
    return _compare_observations(expected, probe_run, tolerance, probe.partial, make, engine)


#: how a run's stop reads as a check's cause
_STOP_CAUSES: dict[str, CauseKind] = {
    "timeout": "timeout", "cpu": "cpu-time", "memory": "memory", "signal": "signal", "exit": "exit",
    "reply-size": "output-limit", "forged-reply": "reply", "grader": "grader", "unknown": "exit"}


def stop_cause(stop: Stop) -> Cause:
    return Cause(_STOP_CAUSES.get(stop.kind, "exit"), stop.kind)


def error_cause(error: ErrorInfo) -> Cause:
    """The student's exception as a cause; a starter's stub still raising NotImplementedError is not attempted."""
    line = error.where.line if error.where is not None else None
    if error.type_name == "NotImplementedError" and error.where is not None \
            and "NotImplementedError" in error.where.text:
        return Cause("not-attempted", error.type_name, line)
    return Cause("exception", error.type_name, line)


def _not_run_cause(run: ExerciseRun) -> Cause:
    """What kept a check from running: the load error, the stop, the missing names, in that order."""
    if run.run.load_error is not None:
        return error_cause(run.run.load_error)
    for stop in (run.group.stop, run.run.stop):
        if stop is not None:
            return stop_cause(stop)
    if run.group.missing:
        return Cause("missing-name", "; ".join(run.group.missing))
    return Cause("exception")


def _ruled(exercise: Exercise, probe: Probe, check: CheckResult, run: Run | None, index: int) -> CheckResult:
    """The check, failed where what ran breaks the exercise's rule about autograd or torch's operators."""
    if not isinstance(run, ExerciseRun) or check.status not in ("passed", "failed"):
        return check
    broken = rule_breaks(exercise, probe, run.group.probes[index])
    if not broken:
        return check
    rule = "; ".join(broken)
    if check.status == "passed":  # the rule is about how, not what: a hidden check may say it too
        return dataclasses.replace(check, status="failed", score=0.0, problem=f"Right values, but not scored: {rule}.",
                                   cause=Cause("rule", rule))
    if probe.visibility == "hidden":
        return check
    return dataclasses.replace(check, problem=f"{check.problem} Also: {rule}.")


def _error_text(error: ErrorInfo, engine: str, *, hidden: bool = False) -> str:
    """The student's exception, where it was raised, and advice where its cause is known. A hidden check's
    keeps the type and the line, not the message: the submission chooses that (`float(f"x{a}")` too), and
    it could quote the check's inputs."""
    if hidden:
        error = dataclasses.replace(error, message="")
    hint = None if hidden else hint_for(error, engine)
    if error.type_name == "NotImplementedError" and error.where is not None \
            and "NotImplementedError" in error.where.text:  # a starter's stub, not torch's own NotImplementedError
        return f"Not implemented yet: {error.describe().removeprefix('NotImplementedError: ')}."
    return f"Your code raised {error.describe()}." + (f" Hint: {hint}" if hint else "")


class _Maker:
    """Builds a probe's CheckResult, withholding the details of hidden checks."""

    def __init__(self, probe: Probe, inputs: Inputs, device: Device) -> None:
        self.probe, self.device = probe, device
        self.inputs = tuple((name, show_input(value)) for name, value in inputs.items())
        self.input_values = tuple((name, plain_input(value)) for name, value in inputs.items())

    def __call__(self, status: Status, problem: str, score: float = 0.0,
                 observations: tuple[ObservationResult, ...] = (), *, ran: bool = True,
                 cause: Cause | None = None) -> CheckResult:
        probe = self.probe
        hidden = probe.visibility == "hidden"
        withhold = hidden or not ran  # a check that never ran has nothing to show
        cause = cause or Cause("passed" if status == "passed" else "wrong-value")
        if hidden and status == "failed":
            problem = HIDDEN_FAILED
            cause = Cause(cause.kind) if cause.kind == "precision" else cause  # how far off says what was expected
        elif hidden and status == "error" and ran:  # what it ran into is its own run's: a check not run says why
            problem = HIDDEN_GRADER_ERROR if cause.kind == "grader" else HIDDEN_ERROR  # from the public run
            cause = Cause(cause.kind, cause.detail if cause.kind in ("rule", "missing-name", "grader") else "")
        return CheckResult(
            name=probe.name if self.device == "cpu" else f"{probe.name} [{self.device}]",
            about=probe.about if ran else "",
            status=status,
            score=score,
            max_score=1.0,
            problem=problem,
            visibility=probe.visibility,
            inputs=() if withhold else self.inputs,
            input_values=() if withhold else self.input_values,
            code="" if withhold else probe.code,
            observations=() if withhold else observations,
            cause=cause,
        )


def _not_run(run: ExerciseRun) -> str:
    if run.run.load_error is not None or not run.run.loaded:
        return f"Not run: your {_what(run.run)} did not load (see above)."
    if run.group.missing:
        return f"Not run: your {_what(run.run)} does not define what this exercise needs (see above)."
    return "Not run: your code stopped before this check (see above)."


def _check_raised(probe: Probe, probe_run: ProbeRun, make: _Maker) -> CheckResult:
    assert probe.raises is not None
    want = f"{probe.raises.type_name}" + (f" with {probe.raises.contains!r} in its message"
                                          if probe.raises.contains else "")
    error = probe_run.error
    if error is None:
        return make("failed", f"Expected {want}, but the code finished without an error.")
    if error.type_name == probe.raises.type_name and probe.raises.contains in error.message:
        return make("passed", "", 1.0)
    return make("failed", f"Expected {want}; got {error.describe()}.", cause=error_cause(error))


def _compare_observations(expected: Expected, probe_run: ProbeRun, tolerance: Tolerance, partial: bool,
                          make: _Maker, engine: str) -> CheckResult:
    want_all = expected.observations
    got_all = probe_run.observations
    if isinstance(want_all, ErrorInfo) or got_all is None:
        raise ValueError("observations are compared only when both sides have them")
    observations = []
    for label, want in want_all.items():
        got = got_all.get(label)
        if got is None:
            observations.append(ObservationResult(label=label, expected=show(want), got="nothing",
                                                  ok=False, problem="nothing was observed",
                                                  expected_value=plain(want)))
            continue
        problem = compare(want, got, expected.tolerance(label, tolerance))
        observations.append(ObservationResult(label=label, expected=show(want), got=show(got),
                                              ok=problem is None, problem=problem or "",
                                              expected_value=plain(want), got_value=plain_got(got, want)))
    wrong = [o for o in observations if not o.ok]
    if not wrong:
        return make("passed", "", 1.0, tuple(observations))
    score = (len(observations) - len(wrong)) / len(observations) if partial else 0.0
    hints = sorted({hint for o in wrong
                    if isinstance(got := got_all.get(o.label), ErrorInfo) and (hint := hint_for(got, engine))})
    text = "; ".join(f"{o.label}: {o.problem}" for o in wrong) + "."
    raised = next((got for o in wrong if isinstance(got := got_all.get(o.label), ErrorInfo)), None)
    cause = error_cause(raised) if raised is not None else precision_cause(expected, got_all, tolerance)
    return make("failed", text + "".join(f" Hint: {h}" for h in hints), score, tuple(observations), cause=cause)


def precision_cause(expected: Expected, got: Mapping[str, Value], tolerance: Tolerance) -> Cause | None:
    """Cause("precision") where every wrong value is within what float32 arithmetic gives at these inputs
    (grader.judge.precision): the check failed for precision alone, which names no mistake. Its detail is the
    largest relative difference and the relative tolerance the check allowed, "D A"."""
    want_all = expected.observations
    if not expected.float32 or isinstance(want_all, ErrorInfo):
        return None
    difference, allowed = 0.0, 0.0
    for label, want in want_all.items():
        value = got.get(label)
        checked = expected.tolerance(label, tolerance)
        if value is not None and compare(want, value, checked) is None:
            continue
        if value is None or compare(want, value, expected.explained(label, tolerance)) is not None:
            return None
        difference = max(difference, relative_difference(want, value))
        allowed = max(allowed, checked.rtol)
    return Cause("precision", f"{difference:.2g} {allowed:.2g}")


def _not_scored(check: CheckResult) -> CheckResult:
    if check.status == "skipped":
        return check
    problem = check.problem if check.status != "passed" else "Right result, but not scored: see the rule above."
    return dataclasses.replace(check, status="failed" if check.status == "passed" else check.status, score=0.0,
                               problem=problem, cause=Cause("rule") if check.status == "passed" else check.cause)
