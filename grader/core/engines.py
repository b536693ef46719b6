"""The kinds of engine an exercise is written for, each declared once with what it means.

A module that treats the kinds apart asks the exercise's kind a question (`exercise.kind.arrays`)
instead of comparing its name: what a kind does is read here, in one table, and a new kind is one
more row. How each kind is diagnosed is declared beside the passes (grader.judge.diagnose.passes).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

Engine = Literal["scalar", "torch", "tensor", "library"]
#: the advice a kind's known errors get (grader.judge.diagnose.hints): torch's about torch, a
#: numpy engine's in numpy's words, an engine of the student's own only what holds everywhere
Advice = Literal["torch", "numpy", "engine"]
#: what a kind's probes compute with, on either side of the sandbox: torch (torch and gradcheck,
#: tensors on the device, torch's generator seeded per probe), numpy (np, arrays), or neither
#: (math and the builtins alone)
Arrays = Literal["torch", "numpy", "none"]


@dataclass(frozen=True, slots=True)
class EngineKind:
    """One kind of engine: the questions other modules ask of it."""

    name: Engine
    #: the student writes an engine's operations, one method each (the lessons' Node): what each
    #: probe calls, the localization of a fault to one rule, the sign slips and the methods no
    #: check reached are read from them; a course may add operations (reference_ops.py)
    operations: bool
    #: what computes the expected values: the reference scalar engine or the reference tensor
    #: engine here (each with a torch float64 twin that confirms them), or the course's own code
    #: (a torch exercise's solution, a library course's reference package), which a released pack
    #: leaves out and stores the values of instead
    oracle: Literal["scalar", "tensor", "course"]
    #: written with torch: its probes and the submission import torch (unless the exercise forbids
    #: autograd), its solution may compute in float32, and its known mistakes are compared on
    #: every failed check (an error's text too: torch's mistakes fail gradcheck by their own words)
    torch: bool
    #: its values are arrays, which central differences sample a few elements of while grading
    #: (each probe can be a whole network; validate checks them all)
    sampled: bool
    #: its probes' inputs have shapes, which must expose axis mistakes (no two dimensions equal)
    shaped: bool
    #: handed in as a package (a library course's repository), which its course's course.yaml
    #: describes
    package: bool
    advice: Advice
    arrays: Arrays
    #: the fields of exercise.yaml this kind takes and the others do not
    fields: frozenset[str] = frozenset()

    @property
    def reference(self) -> bool:
        """Whether a reference engine of ours computes the expected values, here and in a pack."""
        return self.oracle != "course"

    @property
    def cheap_expected(self) -> bool:
        """Whether the expected values take milliseconds here (the reference scalar engine):
        nothing is gained by keeping them on disk."""
        return self.oracle == "scalar"


KINDS: Mapping[Engine, EngineKind] = {
    "scalar": EngineKind(
        "scalar",
        operations=True,
        oracle="scalar",
        torch=False,
        sampled=False,
        shaped=False,
        package=False,
        advice="engine",
        arrays="none",
        fields=frozenset({"contract"}),
    ),
    "tensor": EngineKind(
        "tensor",
        operations=False,
        oracle="tensor",
        torch=False,
        sampled=True,
        shaped=True,
        package=False,
        advice="numpy",
        arrays="numpy",
    ),
    "torch": EngineKind(
        "torch",
        operations=False,
        oracle="course",
        torch=True,
        sampled=False,
        shaped=False,
        package=False,
        advice="torch",
        arrays="torch",
        fields=frozenset({"precision", "autograd"}),
    ),
    "library": EngineKind(
        "library",
        operations=False,
        oracle="course",
        torch=False,
        sampled=False,
        shaped=True,
        package=True,
        advice="engine",
        arrays="numpy",
        fields=frozenset({"grades"}),
    ),
}
