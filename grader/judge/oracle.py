"""Expected values, from trusted code only, confirmed by a second oracle and by central differences.

`engine: scalar` exercises: the reference `Node`, confirmed by the same probe on torch's
float64 engine. `engine: tensor` exercises: the numpy reference `Tensor` (and the functions
built on it, reference.tensor_tasks), confirmed on its torch float64 twin. `engine: torch`
exercises: the exercise's own solution, run here. In both, every declared gradient is confirmed
by central differences. This runs in the trusted process only; the sandbox's zygote is a fresh
interpreter (grader.run.zygote), so no child of student code ever holds an expected value.
"""

from __future__ import annotations

import dataclasses
import json
import math
import random
import types
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from grader.core.compare import compare
from grader.core.engines import Engine
from grader.core.errors import GraderError
from grader.core.exercise import MAX_FD_ELEMENTS, Exercise, Probe
from grader.core.numeric import ENGINE_AGREEMENT, FD_AGREEMENT, FD_EPS, Tolerance
from grader.core.values import (
    Array,
    ErrorInfo,
    Number,
    Value,
    error_from_data,
    error_to_data,
    from_data,
    to_data,
)
from grader.judge import precision, scalar_engine
from grader.run.child.execute import CompiledProbe, compile_probe, namespace, run_probe
from grader.run.child.graph import value_reader
from grader.run.child.reading import data_of
from grader.run.inputs import Inputs, InputValue, TensorInput, probe_seed

#: elements of each gradient that central differences confirm when a tensor exercise is graded
GRADING_FD_ELEMENTS = 8


@dataclass(frozen=True, slots=True)
class Expected:
    """What one probe should observe, and any disagreement between the oracles (a spec bug)."""

    observations: Mapping[str, Value] | ErrorInfo
    disagreements: tuple[str, ...] = ()
    #: what float32 arithmetic of a correct answer may add to each observation's tolerance
    #: here, by label (grader.judge.precision); empty where the solution has no float32 form
    float32: Mapping[str, Tolerance] = field(default_factory=dict)
    #: the exercise accepts float32 answers (`precision: float32`): its checks allow that slack too
    accepts_float32: bool = False

    def tolerance(self, label: str, declared: Tolerance) -> Tolerance:
        """The tolerance the check of `label` scores with:
        the declared one, and float32's slack where accepted."""
        return (
            precision.explained(declared, self.float32.get(label))
            if self.accepts_float32
            else declared
        )

    def explained(self, label: str, declared: Tolerance) -> Tolerance:
        """How far from the expected value precision alone explains a value:
        the declared tolerance, widened by float32's slack whether or not the
        exercise accepts float32 (what a name's evidence must go beyond)."""
        return precision.explained(declared, self.float32.get(label))


@dataclass(frozen=True, slots=True)
class _Oracle:
    name: str
    names: Mapping[str, object]
    device: str
    #: how an observed object becomes data (a library's tensors: their values)
    read: Callable[[object], dict[str, Any]] = data_of


def expected_values(
    exercise: Exercise,
    inputs: tuple[Inputs, ...],
    *,
    seed: int = 0,
    device: str = "cpu",
    torch_engine: bool = True,
) -> tuple[Expected, ...]:
    """One `Expected` per probe, in order, computed on
    `device` (the CPU unless checking CUDA itself).

    A released pack has no solution: a torch exercise there reads the values `grade release` stored.
    `torch_engine=False` leaves out the torch engine's confirmation of an engine exercise (central
    differences still confirm every gradient), so that grading engine exercises never imports torch;
    `grade validate` keeps it.
    """
    if not exercise.kind.reference and exercise.solution is None:
        return released_values(exercise, seed)
    oracles = _oracles(exercise, device, torch_engine)
    # Grading a tensor exercise samples a few elements of each gradient
    # (each probe can be a whole network); validate checks them all.
    fd_elements = (
        GRADING_FD_ELEMENTS if exercise.kind.sampled and not torch_engine else MAX_FD_ELEMENTS
    )
    float32 = _float32_oracle(exercise, device)
    with warnings.catch_warnings():
        warnings.simplefilter(
            "ignore"
        )  # torch's advice to the probe's author is noise in a student's report
        found = []
        for probe, probe_inputs in zip(exercise.probes, inputs, strict=True):
            at = probe_seed(seed, exercise.id, probe.name)
            value = _expected(exercise, probe, probe_inputs, oracles, at, fd_elements)
            if float32 is not None:
                value = _calibrated(exercise, probe, probe_inputs, value, float32, at)
            found.append(value)
        return tuple(found)


def _float32_oracle(exercise: Exercise, device: str) -> _Oracle | None:
    """A torch exercise's solution with its float64 made
    float32 (grader.judge.precision), where it names float64."""
    if not exercise.kind.torch or exercise.solution is None:
        return None
    source = precision.in_float32(exercise.solution.read_text(encoding="utf-8"))
    if source is None:
        return None
    module = _load_module(exercise.solution.with_name("solution-float32.py"), source)
    return _Oracle(
        f"solution in float32 ({device})",
        {name: getattr(module, name) for name, _ in exercise.defines},
        device,
    )


def _calibrated(
    exercise: Exercise, probe: Probe, inputs: Inputs, value: Expected, oracle: _Oracle, seed: int
) -> Expected:
    """`value` with the slack float32 gives at these
    inputs: the float32 solution's distance, with a margin."""
    if isinstance(value.observations, ErrorInfo):
        return value
    got = run_probe(
        _compiled(probe),
        namespace(exercise.probe_arrays, oracle.names, inputs, oracle.device, seed),
    )
    slack = {} if isinstance(got, ErrorInfo) else precision.slack(value.observations, got)
    return dataclasses.replace(
        value, float32=slack, accepts_float32=bool(slack) and exercise.precision == "float32"
    )


def _oracles(exercise: Exercise, device: str, torch_engine: bool = True) -> list[_Oracle]:
    """The names a probe sees, for each oracle; the first one gives the expected values."""
    return _ORACLES[exercise.engine](exercise, device, torch_engine)


def _scalar_oracles(exercise: Exercise, device: str, torch_engine: bool) -> list[_Oracle]:
    """The reference engine, and its torch float64 twin."""
    reference = _Oracle("reference engine", scalar_engine.names(exercise), "cpu")
    if not torch_engine:
        return [reference]
    from reference.torch_engine import torch_node_class

    twin = scalar_engine.names(exercise, torch_node_class(device))
    return [reference, _Oracle(f"torch engine ({device}, float64)", twin, device)]


def _solution_oracles(exercise: Exercise, device: str, torch_engine: bool) -> list[_Oracle]:
    """A torch exercise's solution."""
    assert exercise.solution is not None  # packs without one never get here
    names = solution_names(exercise.solution, exercise.defines)
    return [_Oracle(f"solution ({device})", names, device)]


def _tensor_oracles(exercise: Exercise, device: str, torch_engine: bool) -> list[_Oracle]:
    """The reference tensor engine, and its torch float64 twin."""
    from reference.tensor import Tensor
    from reference.tensor_tasks import reference_names

    names = reference_names(Tensor, exercise.defines)
    reference = _Oracle("reference tensor engine", names, "cpu")
    if not torch_engine:
        return [reference]
    from reference.torch_tensor import torch_tensor_class

    twin = reference_names(torch_tensor_class(device), exercise.defines)
    return [reference, _Oracle(f"torch tensor engine ({device}, float64)", twin, device)]


def _package_oracles(exercise: Exercise, device: str, torch_engine: bool) -> list[_Oracle]:
    """A library course's reference package."""
    from grader.judge.library.reference import reference_names as package_names
    from grader.judge.library.reference import reference_node

    node = reference_node(exercise)
    assert exercise.library is not None
    read = (
        data_of
        if node is None or exercise.library.graph is None
        else value_reader(node, exercise.library.graph.realize, data_of)
    )
    return [_Oracle("course's reference package", package_names(exercise), "cpu", read)]


#: each kind's oracles
_ORACLES: dict[Engine, Callable[[Exercise, str, bool], list[_Oracle]]] = {
    "scalar": _scalar_oracles,
    "torch": _solution_oracles,
    "tensor": _tensor_oracles,
    "library": _package_oracles,
}


def released_values(exercise: Exercise, seed: int) -> tuple[Expected, ...]:
    """Expected values stored in a released pack (see
    `grader.course.pack.release`), for the seed they were made with."""
    assert exercise.expected is not None
    stored = json.loads(exercise.expected.read_text(encoding="utf-8"))
    if stored["seed"] != seed:
        raise GraderError(
            f"exercise {exercise.id} was released with expected values for --seed {stored['seed']} "
            f"only; grade with that seed, or with the course's full exercises."
        )
    return tuple(expected_from_data(stored["probes"][probe.name]) for probe in exercise.probes)


def expected_to_data(value: Expected) -> dict[str, Any]:
    """One probe's expected values as stored (a pack's expected.json,
    grader.judge.expected_cache): its observations, or the error it raises, and
    float32's slack where there is one; the disagreements are the storer's to keep."""
    observed = value.observations
    if isinstance(observed, ErrorInfo):
        return {"error": error_to_data(observed)}
    stored: dict[str, Any] = {"observations": {label: to_data(v) for label, v in observed.items()}}
    if value.float32:
        stored["float32"] = {
            "accepted": value.accepts_float32,
            "slack": {label: [t.rtol, t.atol] for label, t in value.float32.items()},
        }
    return stored


def expected_from_data(entry: object, disagreements: tuple[str, ...] = ()) -> Expected:
    """`expected_to_data` read back, as strictly as a child's reply: exactly one of its forms."""
    if type(entry) is dict and set(entry) == {"error"}:
        return Expected(error_from_data(entry["error"]), disagreements)
    if (
        type(entry) is dict
        and set(entry) in ({"observations"}, {"observations", "float32"})
        and type(entry["observations"]) is dict
    ):
        observations = {str(label): from_data(v) for label, v in entry["observations"].items()}
        accepted, slack = _float32_from_data(
            entry.get("float32", {"accepted": False, "slack": {}}), observations
        )
        return Expected(observations, disagreements, float32=slack, accepts_float32=accepted)
    raise ValueError("stored expected values are neither observations nor an error")


def _float32_from_data(
    data: object, observations: Mapping[str, Value]
) -> tuple[bool, dict[str, Tolerance]]:
    """A stored float32 slack: whether it is accepted, and
    each observation's [rtol, atol], finite and not below 0."""
    if (
        type(data) is not dict
        or set(data) != {"accepted", "slack"}
        or type(data["accepted"]) is not bool
        or type(data["slack"]) is not dict
    ):
        raise ValueError("a stored float32 slack is not {accepted, slack}")
    slack = {}
    for label, pair in data["slack"].items():
        if (
            label not in observations
            or type(pair) is not list
            or len(pair) != 2
            or not all(type(x) is float and math.isfinite(x) and x >= 0 for x in pair)
        ):
            raise ValueError(f"a stored float32 slack for {label!r} is not [rtol, atol]")
        slack[label] = Tolerance(rtol=pair[0], atol=pair[1])
    return data["accepted"], slack


def solution_names(path: Path, defines: tuple[tuple[str, str], ...]) -> dict[str, object]:
    """The names the exercise's solution defines, from a module loaded here (trusted code)."""
    module = _load_module(path, path.read_text(encoding="utf-8"))
    return {name: getattr(module, name) for name, _ in defines}


@cache
def _load_module(path: Path, source: str) -> types.ModuleType:
    module = types.ModuleType(f"solution_{path.parent.name.replace('-', '_')}")
    module.__file__ = str(path)
    exec(compile(source, str(path), "exec", dont_inherit=True), module.__dict__)
    return module


def _expected(
    exercise: Exercise,
    probe: Probe,
    inputs: Inputs,
    oracles: list[_Oracle],
    seed: int,
    fd_elements: int = MAX_FD_ELEMENTS,
) -> Expected:
    compiled = _compiled(probe)
    first, *others = oracles
    reference = run_probe(
        compiled,
        namespace(exercise.probe_arrays, first.names, inputs, first.device, seed),
        read=first.read,
    )
    if isinstance(reference, ErrorInfo):
        if probe.raises is not None:
            return Expected(reference, _check_raised(probe, reference, first.name))
        return Expected(reference, (f"the {first.name} raised {reference.describe()}",))
    if probe.raises is not None:
        return Expected(reference, (f"the {first.name} did not raise {probe.raises.type_name}",))
    problems: list[str] = []
    for oracle in others:
        other = run_probe(
            compiled, namespace(exercise.probe_arrays, oracle.names, inputs, oracle.device, seed)
        )
        if isinstance(other, ErrorInfo):
            problems.append(f"the {oracle.name} raised {other.describe()}")
            continue
        for label, want in reference.items():
            problem = compare(want, other[label], ENGINE_AGREEMENT)
            if problem is not None:
                problems.append(
                    f"{label}: the {oracle.name} disagrees with the {first.name}: {problem}"
                )
    problems.extend(_check_gradients(exercise, probe, inputs, reference, first, seed, fd_elements))
    return Expected(reference, tuple(problems))


def _check_raised(probe: Probe, error: ErrorInfo, oracle: str) -> tuple[str, ...]:
    assert probe.raises is not None
    if error.type_name != probe.raises.type_name or probe.raises.contains not in error.message:
        return (
            f"the {oracle} raised {error.describe()}, not {probe.raises.type_name} with "
            f"{probe.raises.contains!r}",
        )
    return ()


def _check_gradients(
    exercise: Exercise,
    probe: Probe,
    inputs: Inputs,
    reference: Mapping[str, Value],
    oracle: _Oracle,
    seed: int,
    fd_elements: int = MAX_FD_ELEMENTS,
) -> list[str]:
    """Confirm each declared gradient with central differences of `output`, on the first oracle."""
    if probe.output is None:
        return []
    output = _compiled_output(probe.name, probe.code, probe.output)

    def f(changed: Inputs) -> float:
        result = run_probe(
            output,
            namespace(exercise.probe_arrays, oracle.names, changed, oracle.device, seed),
            read=oracle.read,
        )
        value = result.get("output") if isinstance(result, dict) else None
        if isinstance(value, Array) and value.shape == ():
            return value.data[0]
        return value.value if isinstance(value, Number) else math.nan

    problems = []
    for label, input_name in probe.gradients:
        analytic = reference[label]
        value = inputs[input_name]
        size = len(value.data) if isinstance(value, TensorInput) else 1
        flat_analytic = _flat(analytic)
        if flat_analytic is None or len(flat_analytic) != size:
            problems.append(
                f"{label}: the {oracle.name} gives {analytic}, which is not a gradient of "
                f"{input_name}'s shape"
            )
            continue
        for index, n in _central_difference(f, inputs, input_name, seed, fd_elements):
            a = flat_analytic[index]
            if not FD_AGREEMENT.close(n, a):
                where = f"[{index}]" if size > 1 else ""
                problems.append(
                    f"{label}{where}: central differences give {n:.8g}, the {oracle.name} {a:.8g}"
                )
                break
    return problems


def _central_difference(
    f: Callable[[Inputs], float],
    inputs: Inputs,
    name: str,
    seed: int = 0,
    limit: int = MAX_FD_ELEMENTS,
) -> list[tuple[int, float]]:
    """(flat index, slope) for every element of a small
    input; a seeded sample of `limit` of a large one's."""
    value = inputs[name]
    size = len(value.data) if isinstance(value, TensorInput) else 1
    indices = (
        range(size)
        if size <= limit
        else sorted(random.Random(f"fd/{seed}/{name}").sample(range(size), limit))
    )
    slopes = []
    for index in indices:
        plus = {**inputs, name: _nudged(value, index, FD_EPS)}
        minus = {**inputs, name: _nudged(value, index, -FD_EPS)}
        slopes.append((index, (f(plus) - f(minus)) / (2 * FD_EPS)))
    return slopes


def _nudged(value: InputValue, index: int, eps: float) -> InputValue:
    if isinstance(value, TensorInput):
        data = list(value.data)
        data[index] += eps
        return dataclasses.replace(value, data=tuple(data))
    return value + eps


def _flat(value: Value) -> tuple[float, ...] | None:
    if isinstance(value, Number):
        return (value.value,)
    if isinstance(value, Array):
        return value.data
    return None


@cache
def _compiled_probe(name: str, code: str, observe: tuple[tuple[str, str], ...]) -> CompiledProbe:
    return compile_probe(name, code, dict(observe))


def _compiled(probe: Probe) -> CompiledProbe:
    return _compiled_probe(probe.name, probe.code, probe.observe)


def _compiled_output(name: str, code: str, output: str) -> CompiledProbe:
    return _compiled_probe(name, code, (("output", output),))
