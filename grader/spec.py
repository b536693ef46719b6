"""Read an exercise.yaml into a validated, frozen `Exercise`; a bad spec names its file, line and field."""

from __future__ import annotations

import ast
import dataclasses
import json
import math
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import jsonschema
import yaml

from grader.contract import DEFAULT as DEFAULT_CONTRACT
from grader.contract import Contract, problems
from grader.errors import GraderError
from grader.numeric import CUDA_TOLERANCE, DEFAULT_TOLERANCE, Tolerance

Engine = Literal["scalar", "torch", "tensor"]
Visibility = Literal["public", "hidden"]
Device = Literal["cpu", "cuda"]
InputKind = Literal["literal", "scalar", "positive", "negative", "exponent", "uniform", "choice", "tensor"]
DEFAULT_TIME_LIMIT = 10.0
DEFAULT_MEMORY_MB = 2048
MAX_FD_ELEMENTS = 64  # central differences run the probe twice per element: larger tensors are sampled
#: an exercise's id, as the schema has it: its folder's name
ID_PATTERN = r"[a-z0-9][a-z0-9-]*"
FORMAT_HELP = "see exercises/README.md for the format"
#: a course's additions to the reference scalar engine, beside its exercises (grader.course_ops)
COURSE_OPS = "reference_ops.py"


class SpecError(GraderError):
    """An exercise spec that cannot be used; the message names file, line and field."""


@dataclass(frozen=True, slots=True)
class InputSpec:
    """How one probe input is drawn: a literal, or a kind of random value (see `grader.inputs`)."""

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
    """What a submission may import (enforced in the child, grader.policy), and may and must call (grader.rules)."""

    #: engine exercises: modules allowed on top of grader.policy.DEFAULT_ALLOWED
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
    #: observations zero by design up to rounding, which validate's check of rounding noise lets through
    near_zero: tuple[str, ...] = ()


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
    #: torch exercises: the gradients must come from torch's autograd (required), or must not (forbidden),
    #: as the child observes while each probe runs (grader.evidence)
    autograd: Literal["required", "forbidden"] | None = None
    #: torch operators the submission's code may not have run (custom-sigmoid: sigmoid_backward)
    forbid_ops: tuple[str, ...] = ()
    #: a released pack: the points of the hidden checks it leaves out, graded after students submit
    hidden_points: float = 0.0
    #: engine: scalar exercises: the names of the course's engine, in which the probes are written
    contract: Contract = DEFAULT_CONTRACT
    #: engine: scalar exercises: the course's reference_ops.py, beside the exercise folders, if it has one
    course_ops: Path | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Assignment:
    """Exercises that one notebook answers, graded from one run of it."""

    id: str
    title: str
    summary: str
    exercise_ids: tuple[str, ...]
    path: Path


def load_exercise(spec_path: Path) -> Exercise:
    """Parse and validate one exercise.yaml; raise `SpecError` naming the file, line and field."""
    data, lines = _parse_yaml(_read(spec_path, "Every exercise folder needs an exercise.yaml."), spec_path)
    _check_schema(data, lines, spec_path, "exercise")
    return _build(data, lines, spec_path)


def load_assignment(path: Path) -> Assignment:
    """Parse and validate one assignment file; the exercises it names are checked by the catalog."""
    data, lines = _parse_yaml(_read(path, "An assignment is a file exercises/assignments/<id>.yaml."), path)
    _check_schema(data, lines, path, "assignment")
    if data["id"] != path.stem:
        raise _Where(path, lines).error(("id",), f"is {data['id']!r} but the file is {path.name}; they must match.")
    return Assignment(id=data["id"], title=data["title"], summary=data.get("summary", "").strip(),
                      exercise_ids=tuple(data["exercises"]), path=path)


def _read(path: Path, missing: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SpecError(f"{path}: no such file. {missing}") from None
    except UnicodeDecodeError as exc:
        raise SpecError(f"{path}: not UTF-8 text (byte {exc.start}). Save it as UTF-8.") from None
    except OSError as exc:
        raise SpecError(f"{path}: cannot be read ({exc.strerror}).") from None


# ------------------------------------------------------------------------------------------------
# YAML with line numbers


class _Loader(yaml.SafeLoader):
    """SafeLoader that also reads YAML 1.2 floats such as 1e-6 (YAML 1.1 leaves them as strings)."""


#: libyaml's parser where PyYAML has it: the same nodes and marks, ten times faster than pure Python
_Composer: type[yaml.SafeLoader] = type("_Composer", (yaml.CSafeLoader,), {}) if yaml.__with_libyaml__ else _Loader

_YAML12_FLOAT = re.compile(
    r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?
    |[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)
    |\.[0-9_]+(?:[eE][-+]?[0-9]+)?
    |[-+]?\.(?:inf|Inf|INF)
    |\.(?:nan|NaN|NAN))$""",
    re.X,
)
_Loader.add_implicit_resolver("tag:yaml.org,2002:float", _YAML12_FLOAT, list("-+0123456789."))
if _Composer is not _Loader:
    _Composer.add_implicit_resolver("tag:yaml.org,2002:float", _YAML12_FLOAT, list("-+0123456789."))


Path_ = tuple[str | int, ...]


def _parse_yaml(text: str, path: Path) -> tuple[Any, dict[Path_, int]]:
    try:
        node = yaml.compose(text, Loader=_Composer)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"line {mark.line + 1}" if mark is not None else "somewhere"
        raise SpecError(f"{path}, {where}: not valid YAML: {exc.problem or exc.context}.") from None
    except yaml.YAMLError as exc:
        raise SpecError(f"{path}: not valid YAML: {exc}.") from None
    if node is None:
        raise SpecError(f"{path}: the file is empty; an exercise needs at least id, title, points, engine, "
                        f"defines and probes ({FORMAT_HELP}).")
    lines: dict[Path_, int] = {}
    try:
        return _plain(node, (), lines, _Loader(""), path), lines
    except yaml.MarkedYAMLError as exc:  # e.g. a tag such as !!python/object, which a spec never needs
        mark = exc.problem_mark or exc.context_mark
        where = f"line {mark.line + 1}" if mark is not None else "somewhere"
        raise SpecError(f"{path}, {where}: not valid YAML for a spec: {exc.problem or exc.context}.") from None


def _plain(node: yaml.Node, at: Path_, lines: dict[Path_, int], loader: _Loader, path: Path) -> Any:
    # Block scalars (code: |) start on the line after their key.
    lines[at] = node.start_mark.line + 1 + (1 if getattr(node, "style", None) in ("|", ">") else 0)
    if isinstance(node, yaml.MappingNode):
        result: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise SpecError(f"{path}, line {key_node.start_mark.line + 1}: {_field(at)}: keys must be plain "
                                f"names, not lists or mappings.")
            key = str(key_node.value)
            if key in result:
                raise SpecError(f"{path}, line {key_node.start_mark.line + 1}: {_field(at + (key,))} appears twice; "
                                f"remove one.")
            result[key] = _plain(value_node, at + (key,), lines, loader, path)
        return result
    if isinstance(node, yaml.SequenceNode):
        return [_plain(item, at + (i,), lines, loader, path) for i, item in enumerate(node.value)]
    return loader.construct_object(node)


def _field(at: Path_) -> str:
    text = ""
    for part in at:
        if isinstance(part, int):
            text += f"[{part}]"
        elif not part.isprintable() or not part.strip() or part != part.strip():
            text += f"[{part!r}]"  # a key with line breaks or odd spaces, shown so that the message stays one line
        else:
            text += f".{part}" if text else part
    return text or "the top level"


def _line(lines: dict[Path_, int], at: Path_) -> int:
    while at not in lines:
        at = at[:-1]
    return lines[at]


class _Where:
    """Builds 'file, line N, field: problem' messages for one spec."""

    def __init__(self, path: Path, lines: dict[Path_, int]) -> None:
        self.path, self.lines = path, lines

    def error(self, at: Path_, problem: str, line_offset: int = 0) -> SpecError:
        return SpecError(f"{self.path}, line {_line(self.lines, at) + line_offset}: {_field(at)}: {problem}")


# ------------------------------------------------------------------------------------------------
# Schema


def schema_text(kind: str = "exercise") -> str:
    """The JSON Schema the loader checks every spec against (`grade schema` prints it, for editors)."""
    return resources.files("grader").joinpath(f"schemas/{kind}.schema.json").read_text("utf-8")


def parse_spec(path: Path) -> Any:
    """A spec file's data, read as the loader reads it (YAML 1.2 floats such as 1e-6 are numbers)."""
    return _parse_yaml(_read(path, "No such spec."), path)[0]


@cache
def _validator(kind: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(json.loads(schema_text(kind)))


def _check_schema(data: Any, lines: dict[Path_, int], path: Path, kind: str) -> None:
    error = jsonschema.exceptions.best_match(_validator(kind).iter_errors(data))
    if error is None:
        return
    at: Path_ = tuple(error.absolute_path)
    raise _Where(path, lines).error(at, f"{_explain(error)} ({FORMAT_HELP}).")


def _explain(error: jsonschema.ValidationError) -> str:
    got: Any = error.instance
    rule: Any = error.validator_value
    schema: Any = error.schema
    match error.validator:
        case "required":
            missing = [name for name in rule if name not in got]
            return f"missing the required field {missing[0]!r}"
        case "additionalProperties":
            allowed = sorted(schema.get("properties", {}))
            unknown = sorted(set(got) - set(allowed))
            hint = f"; the fields allowed here are {', '.join(allowed)}" if allowed else ""
            return f"unknown field {unknown[0]!r}{hint}"
        case "type":
            return f"must be {_type_words(rule)}, got {got!r}"
        case "enum":
            return f"must be one of {', '.join(map(str, rule))}; got {got!r}"
        case "oneOf":
            return f"{got!r} is not a valid value here: it must be {schema.get('description', 'as documented')}"
        case "exclusiveMinimum":
            return f"must be more than {rule}, got {got!r}"
        case "minimum":
            return f"must be at least {rule}, got {got!r}"
        case "pattern":
            return f"{got!r} does not have the allowed form (pattern {rule})"
    return str(error.message)


def _type_words(kind: object) -> str:
    words = {"number": "a number", "string": "text", "object": "a mapping (key: value lines)",
             "array": "a list (lines starting with '-')", "boolean": "true or false", "integer": "a whole number"}
    return words.get(str(kind), str(kind))


# ------------------------------------------------------------------------------------------------
# Semantic checks and building the dataclasses


def _build(data: dict[str, Any], lines: dict[Path_, int], path: Path) -> Exercise:
    where = _Where(path, lines)
    folder = path.parent
    if data["id"] != folder.name:
        raise where.error(("id",), f"is {data['id']!r} but the folder is {folder.name!r}; they must match.")
    tolerance = _tolerance(data.get("tolerance"), DEFAULT_TOLERANCE)
    cuda_tolerance = _tolerance(data.get("cuda_tolerance"), CUDA_TOLERANCE)
    shared = tuple(_input(name, value, ("inputs", name), where, shared=True)
                   for name, value in data.get("inputs", {}).items())
    probes = tuple(_probe(p, ("probes", i), where, tolerance, cuda_tolerance, shared)
                   for i, p in enumerate(data["probes"]))
    names = [p.name for p in probes]
    for i, name in enumerate(names):
        if name in names[:i]:
            raise where.error(("probes", i, "name"), f"{name!r} is used by an earlier probe; names must be unique.")
    total = sum(p.points for p in probes)
    if abs(total - data["points"]) > 1e-9:
        raise where.error(("points",), f"is {data['points']} but the probes' points add up to {total:g}; "
                                       f"make them agree.")
    starter = _file(folder, data.get("starter", "starter.py"), ("starter",), where)
    expected = _file(folder, data["expected"], ("expected",), where) if "expected" in data else None
    # A released pack holds no solution: a torch exercise brings its expected values instead, and a
    # scalar one needs none, since the reference engine computes them.
    packed = "solution" not in data and (expected is not None or (
        data["engine"] in ("scalar", "tensor") and not (folder / "solution.py").exists()))
    if data["engine"] == "tensor":
        _tensor_reference(data["defines"], where)
    solution = None if packed else _file(folder, data.get("solution", "solution.py"), ("solution",), where)
    mutants_dir = folder / data.get("mutants", "mutants")
    if "mutants" in data and not mutants_dir.is_dir():
        raise where.error(("mutants",), f"folder {mutants_dir} does not exist.")
    mutants = tuple(_mutant(p) for p in sorted(mutants_dir.glob("*.py"))) if mutants_dir.is_dir() else ()
    contract = _contract(data, where)
    course_ops = folder.parent / COURSE_OPS
    return Exercise(
        id=data["id"],
        title=data["title"],
        summary=data.get("summary", "").strip(),
        points=float(data["points"]),
        engine=data["engine"],
        defines=tuple(data["defines"].items()),
        folder=folder,
        spec_path=path,
        starter=starter,
        solution=solution,
        expected=expected,
        mutants=mutants,
        time_limit=float(data.get("time_limit", DEFAULT_TIME_LIMIT)),
        memory_mb=int(data.get("memory_limit", DEFAULT_MEMORY_MB)),
        source=SourceRules(**{key: tuple(names) for key, names in data.get("source", {}).items()}),
        probes=probes,
        autograd=data.get("autograd"),
        forbid_ops=tuple(data.get("forbid_ops", ())),
        hidden_points=float(data.get("hidden_points", 0)),
        contract=contract,
        course_ops=course_ops if data["engine"] == "scalar" and course_ops.is_file() else None,
    )


def _contract(data: dict[str, Any], where: _Where) -> Contract:
    """The engine's names; the class must be one the exercise asks a submission to define."""
    if "contract" not in data:
        return DEFAULT_CONTRACT
    if data["engine"] != "scalar":
        raise where.error(("contract",), f"is for engine: scalar exercises; this one is engine: {data['engine']}. "
                                         f"Remove it (the names in 'defines' are what a submission provides).")
    given = data["contract"]
    contract = Contract(class_name=given.get("class", "Node"), value=given.get("value", "value"),
                        grad=given.get("grad", "grad"), backward=given.get("backward", "backward"))
    from reference.scalar import Node  # the engine every contract is served by

    taken = frozenset(n for n in dir(Node) if not n.startswith("__")) - {"value", "grad", "backward"}
    for field, problem in problems(contract, taken):
        raise where.error(("contract", field), f"{problem}.")
    if data["defines"].get(contract.class_name) != "class":
        raise where.error(("contract", "class"), f"is {contract.class_name!r}, but 'defines' does not ask for a "
                                                 f"class of that name; add `{contract.class_name}: class` to defines.")
    return contract


def _tolerance(data: dict[str, float] | None, default: Tolerance) -> Tolerance:
    if data is None:
        return default
    return Tolerance(rtol=float(data.get("rtol", default.rtol)), atol=float(data.get("atol", default.atol)))


def _probe(data: dict[str, Any], at: Path_, where: _Where, tolerance: Tolerance, cuda_tolerance: Tolerance,
           shared: tuple[InputSpec, ...] = ()) -> Probe:
    own = tuple(_input(name, value, at + ("inputs", name), where) for name, value in data.get("inputs", {}).items())
    for spec in own:
        if any(spec.name == other.name for other in shared):
            raise where.error(at + ("inputs", spec.name), "is also an input of the whole exercise; rename one.")
    inputs = shared + own
    input_names = {spec.name for spec in inputs}
    _compiles(data["code"], "exec", at + ("code",), where)
    if "observe" not in data and "raises" not in data:
        raise where.error(at, "needs 'observe' (what to compare) or 'raises' (the error the code must raise).")
    observe: list[tuple[str, str]] = []
    for i, item in enumerate(data.get("observe", [])):
        label, expr = (item, item) if isinstance(item, str) else next(iter(item.items()))
        _compiles(expr, "eval", at + ("observe", i), where)
        if label in dict(observe):
            raise where.error(at + ("observe", i), f"{label!r} is observed twice.")
        observe.append((label, expr))
    labels = dict(observe)
    output = data.get("output")
    if output is not None:
        _compiles(output, "eval", at + ("output",), where)
    gradients = tuple(data.get("gradients", {}).items())
    kinds = {spec.name: spec for spec in inputs}
    for label, input_name in gradients:
        if label not in labels:
            raise where.error(at + ("gradients", label), f"{label!r} is not one of this probe's observations.")
        if input_name not in input_names:
            raise where.error(at + ("gradients", label), f"{input_name!r} is not one of this probe's inputs.")
        if kinds[input_name].dtype == "int64":
            raise where.error(at + ("gradients", label), f"{input_name!r} holds integers, which have no gradient.")
    if gradients and output is None:
        raise where.error(at + ("gradients",), "needs 'output': the expression whose gradients these are.")
    printed: list[tuple[str, str | tuple[str, ...]]] = []
    for label, number in data.get("printed", {}).items():
        if label not in labels:
            raise where.error(at + ("printed", label), f"{label!r} is not one of this probe's observations.")
        printed.append((label, tuple(number) if isinstance(number, list) else str(number)))
    for i, label in enumerate(data.get("near_zero", [])):
        if label not in labels:
            raise where.error(at + ("near_zero", i), f"{label!r} is not one of this probe's observations.")
    return Probe(
        near_zero=tuple(data.get("near_zero", [])),
        name=data["name"],
        about=data.get("about", "").strip(),
        points=float(data["points"]),
        visibility=data.get("visibility", "public"),
        partial=bool(data.get("partial", False)),
        inputs=inputs,
        code=data["code"],
        observe=tuple(observe),
        output=output,
        gradients=gradients,
        tolerance=_tolerance(data.get("tolerance"), tolerance),
        cuda_tolerance=_tolerance(data.get("cuda_tolerance"), cuda_tolerance),
        devices=tuple(data.get("devices", ["cpu"])),
        raises=Raises(data["raises"]["type"], data["raises"].get("contains", "")) if "raises" in data else None,
        printed=tuple(printed),
        line=_line(where.lines, at),
    )


def _input(name: str, value: Any, at: Path_, where: _Where, shared: bool = False) -> InputSpec:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return InputSpec(name, "literal", (value,), shared=shared)
    if isinstance(value, str):
        return InputSpec(name, value, shared=shared)  # type: ignore[arg-type]  # the schema allows only the kinds
    if "tensor" in value:
        return dataclasses.replace(_tensor_input(name, value, at, where), shared=shared)
    (kind, values), = value.items()
    if kind == "uniform":
        return InputSpec(name, "uniform", bounds=(float(values[0]), float(values[1])), shared=shared)
    return InputSpec(name, kind, tuple(values), shared=shared)


def _tensor_input(name: str, value: dict[str, Any], at: Path_, where: _Where) -> InputSpec:
    shape = tuple(value["tensor"])
    literal = tuple(value.get("values", ()))
    if literal and len(literal) != math.prod(shape):
        raise where.error(at, f"has {len(literal)} values but shape {list(shape)} holds {math.prod(shape)}.")
    if literal and ("uniform" in value or value.get("positive")):
        raise where.error(at, "give either literal 'values' or a way to draw them ('uniform', 'positive'), not both.")
    if "integers" in value:
        low, high = value["integers"]
        if literal or "uniform" in value or value.get("positive") or "dtype" in value or high <= low:
            raise where.error(at, "'integers: [low, high]' draws whole numbers low <= n < high (high above low); "
                                  "it goes without 'values', 'uniform', 'positive' and 'dtype'.")
        return InputSpec(name, "tensor", (), (float(low), float(high)), shape, "int64",
                         bool(value.get("requires_grad", False)))
    bounds = value.get("uniform")
    return InputSpec(name, "tensor", literal, (float(bounds[0]), float(bounds[1])) if bounds else None, shape,
                     value.get("dtype", "float64"), bool(value.get("requires_grad", False)),
                     bool(value.get("positive", False)), equal_dims=bool(value.get("equal_dims", False)))


def _tensor_reference(defines: dict[str, str], where: _Where) -> None:
    """A tensor exercise's oracle is the tensor reference: it must know every name the exercise asks for."""
    from reference.tensor_tasks import reference_names  # numpy, and only for tensor exercises

    try:
        reference_names(object, tuple(defines.items()))
    except KeyError as exc:
        raise where.error(("defines",), f"{exc.args[0]}: engine tensor exercises ask for those names only.") \
            from None


def _compiles(text: str, mode: str, at: Path_, where: _Where) -> None:
    try:
        compile(text, "<spec>", mode, dont_inherit=True)
    except SyntaxError as exc:
        raise where.error(at, f"is not valid Python: {exc.msg} (line {exc.lineno} of the code).",
                          line_offset=(exc.lineno or 1) - 1) from None


def _file(folder: Path, name: str, at: Path_, where: _Where) -> Path:
    path = folder / name
    if not path.is_file():
        raise where.error(at, f"file {path} does not exist.")
    return path


def _mutant(path: Path) -> Mutant:
    """A mutant file opens with a docstring holding 'mistake: <id>' and 'hint: <text>' lines."""
    try:
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    except (SyntaxError, UnicodeDecodeError) as exc:
        raise SpecError(f"{path}: cannot read this mutant: {exc}.") from None
    fields: dict[str, str] = {}
    key = None
    for raw in doc.splitlines():
        match = re.match(r"^(mistake|hint):\s*(.*)$", raw.strip())
        if match:
            key = match.group(1)
            fields[key] = match.group(2)
        elif key == "hint" and raw.strip():
            fields["hint"] += " " + raw.strip()
    for needed in ("mistake", "hint"):
        if not fields.get(needed):
            raise SpecError(f"{path}, line 1: the docstring has no '{needed}:' line; every mutant declares "
                            f"'mistake: <id>' and 'hint: <what the student reads>'.")
    return Mutant(path, fields["mistake"], fields["hint"])
