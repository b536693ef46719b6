"""Small exercises, runs and expected values built by hand, for the unit tests of check, diagnose and render_text.

Nothing here runs student code or an oracle: a test says what the child observed and what the oracle
expects, so that a change in how checks are scored or mistakes named shows in that module's own tests.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from grader.core.exercise import Device, Exercise, Mutant, Probe, Raises, SourceRules
from grader.core.numeric import CUDA_TOLERANCE, DEFAULT_TOLERANCE
from grader.core.values import ErrorInfo, Number, Value
from grader.judge.oracle import Expected
from grader.run.inputs import Inputs
from grader.run.observed import Evidence, GroupRun, ProbeRun, RunResult, Stop

#: where the hand-built exercise pretends to live; nothing is read from there
NOWHERE = Path("/nonexistent/ex")


def probe(name: str, *, points: float = 1.0, observe: tuple[str, ...] = ("x.grad",),
          gradients: tuple[tuple[str, str], ...] = (), visibility: str = "public", partial: bool = False,
          devices: tuple[Device, ...] = ("cpu",), raises: Raises | None = None,
          code: str = "x = Node(a)\nout = x * x\nout.backward()\n", about: str = "") -> Probe:
    return Probe(name=name, about=about or f"what {name} checks", points=points,
                 visibility=visibility,  # type: ignore[arg-type]
                 partial=partial, inputs=(), code=code, observe=tuple((label, label) for label in observe),
                 output="out.value" if gradients else None, gradients=gradients, tolerance=DEFAULT_TOLERANCE,
                 cuda_tolerance=CUDA_TOLERANCE, devices=devices, raises=raises, printed=(), line=1)


def exercise(*probes: Probe, engine: str = "scalar", mutants: tuple[Mutant, ...] = (), **more: Any) -> Exercise:
    return Exercise(id="ex", title="A hand-built exercise", summary="", points=sum(p.points for p in probes),
                    engine=engine,  # type: ignore[arg-type]
                    defines=(("Node", "class"),), folder=NOWHERE, spec_path=NOWHERE / "exercise.yaml",
                    starter=NOWHERE / "starter.py", solution=NOWHERE / "solution.py", expected=None,
                    mutants=mutants, time_limit=5.0, memory_mb=512, source=SourceRules(), probes=probes, **more)


def mutant(mistake: str, hint: str = "") -> Mutant:
    return Mutant(path=NOWHERE / "mutants" / f"{mistake}.py", mistake=mistake, hint=hint or f"the hint of {mistake}")


def numbers(**values: float) -> dict[str, Value]:
    """Observations by label; a label with a dot is spelled with a double underscore (x__grad)."""
    return {label.replace("__", "."): Number(v) for label, v in values.items()}


def expect(**values: float) -> Expected:
    return Expected(numbers(**values))


def observed(observations: Mapping[str, Value] | None = None, error: ErrorInfo | None = None,
             evidence: Evidence | None = None) -> ProbeRun:
    return ProbeRun(observations=None if observations is None else dict(observations), error=error,
                    evidence=evidence)


def group(*probes: ProbeRun | None, missing: tuple[str, ...] = (), stopped_at: int | None = None,
          stop: Stop | None = None, needs: tuple[tuple[str, ...], ...] = ()) -> GroupRun:
    return GroupRun(missing=missing, probes=probes, stopped_at=stopped_at, stop=stop, needs=needs)


def run_result(*groups: GroupRun, kind: str = "python", loaded: bool = True,
               cell_errors: tuple[ErrorInfo, ...] = (), stop: Stop | None = None,
               stopped_in_cell: str | None = None) -> RunResult:
    return RunResult(kind=kind,  # type: ignore[arg-type]
                     loaded=loaded, cell_errors=cell_errors, stop=stop, stopped_in_cell=stopped_in_cell,
                     groups=groups, output="", output_truncated=False, seconds=0.01)


def no_inputs(count: int) -> tuple[Inputs, ...]:
    return tuple({} for _ in range(count))
