"""Expected values: the reference engine, confirmed by torch (float64) and by central differences.

Runs in the trusted process only, after the sandbox's zygote has been forked, so that no child
of student code ever holds an expected value.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

from grader.compare import compare
from grader.execute import CompiledProbe, compile_probe, run_probe
from grader.inputs import Inputs
from grader.numeric import ENGINE_AGREEMENT, FD_AGREEMENT, FD_EPS
from grader.spec import Exercise, Probe
from grader.values import ErrorInfo, Number, Value
from reference.scalar import Node
from reference.torch_engine import torch_node_class


@dataclass(frozen=True, slots=True)
class Expected:
    """What one probe should observe, and any disagreement between the oracles (a spec bug)."""

    observations: Mapping[str, Value] | ErrorInfo
    disagreements: tuple[str, ...] = ()


def expected_values(exercise: Exercise, inputs: tuple[Inputs, ...], *, device: str = "cpu") -> tuple[Expected, ...]:
    """One `Expected` per probe, in order."""
    engines = _engines(exercise, device)
    return tuple(_expected(probe, probe_inputs, engines)
                 for probe, probe_inputs in zip(exercise.probes, inputs, strict=True))


def _engines(exercise: Exercise, device: str) -> dict[str, dict[str, object]]:
    """The names a probe sees, for each oracle; the first one is the reference."""
    match exercise.engine:
        case "scalar":
            torch_node = torch_node_class(device)
            return {"reference engine": {"Node": Node}, f"torch ({device}, float64)": {"Node": torch_node}}
    raise ValueError(f"unknown engine {exercise.engine!r}")


def _expected(probe: Probe, inputs: Inputs, engines: dict[str, dict[str, object]]) -> Expected:
    compiled = _compiled(probe)
    (ref_name, ref_names), *others = engines.items()
    reference = run_probe(compiled, _namespace(ref_names, inputs))
    if isinstance(reference, ErrorInfo):
        return Expected(reference, (f"the {ref_name} raised {reference.describe()}",))
    problems: list[str] = []
    for name, names in others:
        other = run_probe(compiled, _namespace(names, inputs))
        if isinstance(other, ErrorInfo):
            problems.append(f"{name} raised {other.describe()}")
            continue
        for label, want in reference.items():
            problem = compare(want, other[label], ENGINE_AGREEMENT)
            if problem is not None:
                problems.append(f"{label}: {name} disagrees with the {ref_name}: {problem}")
    problems.extend(_check_gradients(probe, inputs, reference, ref_names))
    return Expected(reference, tuple(problems))


def _check_gradients(probe: Probe, inputs: Inputs, reference: Mapping[str, Value],
                     names: dict[str, object]) -> list[str]:
    """Confirm each declared gradient with a central difference of `output` on the reference."""
    if probe.output is None:
        return []
    output = _compiled_output(probe.name, probe.code, probe.output)
    problems = []
    for label, input_name in probe.gradients:
        analytic = reference[label]
        if not isinstance(analytic, Number):
            problems.append(f"{label}: the reference gradient is not a number")
            continue
        x = inputs[input_name]
        f_plus = _output_value(output, names, {**inputs, input_name: x + FD_EPS})
        f_minus = _output_value(output, names, {**inputs, input_name: x - FD_EPS})
        numeric = (f_plus - f_minus) / (2 * FD_EPS)
        if not FD_AGREEMENT.close(numeric, analytic.value):
            problems.append(f"{label}: central differences give {numeric:.8g}, the reference {analytic.value:.8g}")
    return problems


def _output_value(output: CompiledProbe, names: dict[str, object], inputs: Inputs) -> float:
    result = run_probe(output, _namespace(names, inputs))
    value = result.get("output") if isinstance(result, dict) else None
    return value.value if isinstance(value, Number) else math.nan


def _namespace(names: dict[str, object], inputs: Inputs) -> dict[str, object]:
    return {"math": math, **names, **inputs}


@cache
def _compiled_probe(name: str, code: str, observe: tuple[tuple[str, str], ...]) -> CompiledProbe:
    return compile_probe(name, code, dict(observe))


def _compiled(probe: Probe) -> CompiledProbe:
    return _compiled_probe(probe.name, probe.code, probe.observe)


def _compiled_output(name: str, code: str, output: str) -> CompiledProbe:
    return _compiled_probe(name, code, (("output", output),))
