"""What an exercise is, once read: frozen dataclasses and the literals most modules need."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from grader.core.contract import DEFAULT as DEFAULT_CONTRACT
from grader.core.contract import Contract
from grader.core.engines import KINDS, Arrays, Engine, EngineKind
from grader.core.library import Library
from grader.core.numeric import Tolerance

Visibility = Literal["public", "hidden"]
Device = Literal["cpu", "cuda"]
InputKind = Literal[
    "literal", "scalar", "positive", "negative", "exponent", "uniform", "choice", "tensor"
]
DEFAULT_TIME_LIMIT = 10.0
DEFAULT_MEMORY_MB = 2048
MAX_FD_ELEMENTS = (
    64  # central differences run the probe twice per element: larger tensors are sampled
)
#: an exercise's id, as the schema has it: its folder's name
ID_PATTERN = r"[a-z0-9][a-z0-9-]*"
FORMAT_HELP = "see exercises/README.md for the format"
#: a course's additions to the reference scalar engine,
#: beside its exercises (grader.judge.course_ops)
COURSE_OPS = "reference_ops.py"
#: an exercise's own diagnosis, in its folder (grader.judge.diagnose.exercise_code)
DIAGNOSIS = "diagnosis.py"
#: a course's settings for every exercise of its folder, beside
#: the exercise folders (grader/schemas/course.schema.json)
COURSE_SETTINGS = "course.yaml"


@dataclass(frozen=True, slots=True)
class InputSpec:
    """How one probe input is drawn: a literal, or a
    kind of random value (see `grader.run.inputs`)."""

    name: str
    kind: InputKind
    #: the literal, the choices or a tensor's literal data, as the YAML wrote them (2 stays an int)
    values: tuple[float | int, ...] = ()
    #: uniform bounds, for `uniform` and for tensors drawn from a range
    bounds: tuple[float, float] | None = None
    #: tensors only
    shape: tuple[int, ...] = ()
    dtype: Literal["float64", "float32", "int64"] = "float64"
    requires_grad: bool = False
    positive: bool = False
    #: one draw per exercise and seed, the same in every probe (an exercise-level `inputs` entry)
    shared: bool = False
    #: a tensor whose dimensions are equal on purpose (a square matrix), exempt from the probe rules
    equal_dims: bool = False


@dataclass(frozen=True, slots=True)
class Raises:
    """The probe's code must raise this: the type's name, and a fragment of its message."""

    type_name: str
    contains: str


@dataclass(frozen=True, slots=True)
class SourceRules:
    """What a submission may import (enforced in the child,
    grader.run.policy), and may and must call (grader.judge.rules)."""

    #: engine exercises: modules allowed on top of grader.run.policy.DEFAULT_ALLOWED
    allow_imports: tuple[str, ...] = ()
    forbid_imports: tuple[str, ...] = ()
    require_calls: tuple[str, ...] = ()
    forbid_calls: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Probe:
    """One check: run `code` on fresh inputs, read the `observe` expressions, compare."""

    name: str
    about: str
    points: float
    visibility: Visibility
    partial: bool
    inputs: tuple[InputSpec, ...]
    code: str
    observe: tuple[tuple[str, str], ...]  # (label, expression)
    output: str | None  # the expression whose gradients `gradients` reads
    gradients: tuple[tuple[str, str], ...]  # (observation label, input name)
    tolerance: Tolerance
    #: against the CPU float64 expectation, for runs on CUDA (float32 and other kernels)
    cuda_tolerance: Tolerance
    devices: tuple[Device, ...]
    raises: Raises | None
    #: what a lesson prints: a number as text ("0.1611", "4/9"), a text, or a list of texts
    printed: tuple[tuple[str, str | tuple[str, ...]], ...]
    line: int
    #: observations zero by design up to rounding, which
    #: validate's check of rounding noise lets through
    near_zero: tuple[str, ...] = ()
    #: engine: library: the ops this probe grades, where they are
    #: not the exercise's (its own op, in an exercise of several)
    grades: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Mutant:
    """A known mistake, implemented; `mistake` names it and `hint` is what a student reads."""

    path: Path
    mistake: str
    hint: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Exercise:
    id: str
    title: str
    summary: str
    points: float
    engine: Engine
    defines: tuple[tuple[str, str], ...]  # (name, class | function | value)
    folder: Path
    spec_path: Path
    starter: Path
    #: None in a released pack, which carries `expected` values instead
    solution: Path | None
    expected: Path | None
    mutants: tuple[Mutant, ...]
    time_limit: float
    memory_mb: int
    source: SourceRules
    probes: tuple[Probe, ...]
    #: torch exercises: the gradients must come from torch's autograd (required:
    #: as the child observes while each probe runs, grader.run.child.evidence),
    #: or must not (forbidden: torch is not in the submission's tree)
    autograd: Literal["required", "forbidden"] | None = None
    #: torch operators the submission's code may not have run (custom-sigmoid: sigmoid_backward)
    forbid_ops: tuple[str, ...] = ()
    #: no complex numbers in the submission's values while the probes
    #: run (grader.run.child.complex_watch): a complex step finds every
    #: derivative without deriving one (manual-backprop means by hand)
    forbid_complex: bool = False
    #: a released pack: the points of the hidden checks it leaves out, graded after students submit
    hidden_points: float = 0.0
    #: engine: scalar exercises: the names of the course's engine, in which the probes are written
    contract: Contract = DEFAULT_CONTRACT
    #: engine: scalar exercises: the course's reference_ops.py,
    #: beside the exercise folders, if it has one
    course_ops: Path | None = None
    #: engine: library exercises: the course's package settings
    #: (course.yaml), and the ops this exercise grades by dotted path; every
    #: other op a probe's result was built with is the course's reference
    library: Library | None = None
    grades: tuple[str, ...] = ()
    #: the least precision a correct answer may compute in: a torch exercise
    #: whose starter, text or torch's default make float32 tensors accepts
    #: float32, and its checks allow what float32 gives (grader.judge.precision)
    precision: Literal["float64", "float32"] = "float64"
    #: correct answers written another way (variants/*.py):
    #: `grade validate` proves each scores full marks, unnamed
    variants: tuple[Path, ...] = ()
    #: its own diagnosis code (diagnosis.py), if it has one: the course's trusted code, loaded in
    #: the grading process only (grader.judge.diagnose.exercise_code)
    diagnosis: Path | None = None

    @property
    def kind(self) -> EngineKind:
        """What its engine means (grader.core.engines)."""
        return KINDS[self.engine]

    @property
    def uses_torch(self) -> bool:
        """Whether torch is in the submission's tree: a torch exercise's,
        unless it forbids autograd, which it proves by leaving torch out
        (forward-mode: a Dual class graded against its solution)."""
        return self.kind.torch and self.autograd != "forbidden"

    @property
    def probe_arrays(self) -> Arrays:
        """What its probes compute with, on either side (grader.run.child.execute.namespace): its
        kind's, but math and the builtins alone for a torch exercise without torch."""
        return "none" if self.kind.torch and not self.uses_torch else self.kind.arrays

    @property
    def names(self) -> tuple[tuple[str, str], ...]:
        """(the name a probe knows, what it must be) for each name in `defines`: a library's
        dotted paths are known by their last part (needle.ops.EWiseMul as EWiseMul)."""
        return tuple((name.rpartition(".")[2], kind) for name, kind in self.defines)


@dataclass(frozen=True, slots=True, kw_only=True)
class Assignment:
    """Exercises that one notebook answers, graded from one run of it."""

    id: str
    title: str
    summary: str
    exercise_ids: tuple[str, ...]
    path: Path
