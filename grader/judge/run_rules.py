"""Whether what ran during a probe breaks its exercise's run-time rules, read from
the child's evidence (grader.run.child.evidence, grader.run.child.complex_watch):
autograd required, torch's own derivative, complex numbers."""

from __future__ import annotations

from grader.core.exercise import Exercise, Probe
from grader.core.numeric import Tolerance
from grader.core.values import Array, Number
from grader.run.observed import ProbeRun


def rule_breaks(exercise: Exercise, probe: Probe, probe_run: ProbeRun | None) -> tuple[str, ...]:
    """How what ran during a probe breaks the exercise's
    rule about autograd or torch's operators, in words."""
    if (
        not (exercise.autograd == "required" or exercise.forbid_ops or exercise.forbid_complex)
        or probe.raises is not None
        or probe_run is None
        or probe_run.error is not None
    ):
        return ()
    evidence = probe_run.evidence
    if evidence is None:
        return ("the grader saw no record of what autograd did during this check",)
    broken = []
    if exercise.autograd == "required" and evidence.runs == 0:
        broken.append(
            "torch's autograd never ran during this check: the gradients must come from backward() "
            "(or torch.autograd.grad), not be worked out by hand"
        )
    if exercise.autograd == "required" and evidence.runs and probe_run.observations is not None:
        made = [
            label
            for label, _ in probe.gradients
            if not _produced(probe_run.observations.get(label), evidence.produced, probe.tolerance)
        ]
        if made:
            broken.append(
                f"{', '.join(made)} {'is' if len(made) == 1 else 'are'} not "
                "what backward() computed: worked out by hand, or taken "
                "from another graph than the one the check asks about"
            )
    if exercise.autograd == "required" and evidence.not_from_engine:
        names = ", ".join(f"{n}.grad" for n in evidence.not_from_engine)
        broken.append(
            f"{names} is not what backward() left there: it was set by hand, or changed after"
        )
    if evidence.forbidden_ops:
        ops = ", ".join(evidence.forbidden_ops)
        broken.append(
            f"your code ran torch's own {ops}, the derivative this exercise asks you to write"
        )
    if exercise.forbid_complex and evidence.complex_at:
        # where, in a public check only: the place is the submission's choice
        where = f" ({evidence.complex_at})" if probe.visibility == "public" else ""
        broken.append(
            f"your code computed with complex numbers{where}: a complex step finds a "
            "derivative without deriving it, and this exercise asks for each one by hand"
        )
    return tuple(broken)


def _produced(value: object, produced: tuple[float, ...], tolerance: Tolerance) -> bool:
    """Whether every number of an observed gradient is one autograd
    produced during the probe (within the check's tolerance: a
    float32 gradient read as a Python float is still the engine's)."""
    numbers = (
        (value.value,)
        if isinstance(value, Number)
        else value.data
        if isinstance(value, Array)
        else None
    )
    if numbers is None:
        return True  # not a number: the comparison says what is wrong with it
    return all(any(tolerance.close(n, p) for p in produced) for n in numbers)
