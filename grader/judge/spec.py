"""Read an exercise.yaml (or an assignment) into a validated, frozen `Exercise`; a bad spec names its file, line
and field."""

from __future__ import annotations

import ast
import dataclasses
import math
import re
from pathlib import Path
from typing import Any

from grader.core.contract import DEFAULT as DEFAULT_CONTRACT
from grader.core.contract import Contract, problems
from grader.core.errors import SpecError
from grader.core.exercise import (
    COURSE_OPS,
    COURSE_SETTINGS,
    DEFAULT_MEMORY_MB,
    DEFAULT_TIME_LIMIT,
    Assignment,
    Exercise,
    InputSpec,
    Mutant,
    Probe,
    Raises,
    SourceRules,
)
from grader.core.numeric import CUDA_TOLERANCE, DEFAULT_TOLERANCE, Tolerance
from grader.judge.spec_course import course_imports, library_settings
from grader.judge.spec_yaml import At, Where, check_schema, line_of, parse_yaml, read_spec


def load_exercise(spec_path: Path) -> Exercise:
    """Parse and validate one exercise.yaml; raise `SpecError` naming the file, line and field."""
    data, lines = parse_yaml(read_spec(spec_path, "Every exercise folder needs an exercise.yaml."), spec_path)
    check_schema(data, lines, spec_path, "exercise")
    return _build(data, lines, spec_path)


def load_assignment(path: Path) -> Assignment:
    """Parse and validate one assignment file; the exercises it names are checked by the catalog."""
    data, lines = parse_yaml(read_spec(path, "An assignment is a file exercises/assignments/<id>.yaml."), path)
    check_schema(data, lines, path, "assignment")
    if data["id"] != path.stem:
        raise Where(path, lines).error(("id",), f"is {data['id']!r} but the file is {path.name}; they must match.")
    return Assignment(id=data["id"], title=data["title"], summary=data.get("summary", "").strip(),
                      exercise_ids=tuple(data["exercises"]), path=path)


# ------------------------------------------------------------------------------------------------
# Semantic checks and building the dataclasses


def _build(data: dict[str, Any], lines: dict[At, int], path: Path) -> Exercise:
    where = Where(path, lines)
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
    library = library_settings(data, folder.parent, where)
    starter = library.starter if library is not None and library.starter is not None else \
        _file(folder, data.get("starter", "starter.py"), ("starter",), where)
    expected = _file(folder, data["expected"], ("expected",), where) if "expected" in data else None
    # A released pack holds no solution: a torch exercise brings its expected values instead, and a
    # scalar one needs none, since the reference engine computes them.
    packed = "solution" not in data and (expected is not None or (
        data["engine"] in ("scalar", "tensor") and not (folder / "solution.py").exists()))
    if data["engine"] == "tensor":
        _tensor_reference(data["defines"], where)
    _autograd_rule(data, probes, where)
    if library is not None:
        packed = library.reference is None or not library.reference.is_dir()
        solution = None if packed else library.reference
    else:
        solution = None if packed else _file(folder, data.get("solution", "solution.py"), ("solution",), where)
    mutants_dir = folder / data.get("mutants", "mutants")
    if "mutants" in data and not mutants_dir.is_dir():
        raise where.error(("mutants",), f"folder {mutants_dir} does not exist.")
    mutants = tuple(_mutant(p) for p in sorted(mutants_dir.glob("*.py"))) if mutants_dir.is_dir() else ()
    if data.get("precision", "float64") != "float64" and data["engine"] != "torch":
        raise where.error(("precision",), f"is for engine: torch exercises, whose answers may compute in float32; "
                                          f"this one is engine: {data['engine']}. Remove it.")
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
        source=_source_rules(data, folder.parent),
        probes=probes,
        autograd=data.get("autograd"),
        forbid_ops=tuple(data.get("forbid_ops", ())),
        forbid_complex=bool(data.get("forbid_complex", False)),
        hidden_points=float(data.get("hidden_points", 0)),
        contract=contract,
        course_ops=course_ops if data["engine"] == "scalar" and course_ops.is_file() else None,
        library=library,
        grades=tuple(data.get("grades", ())),
        precision=data.get("precision", "float64"),
        variants=tuple(sorted((folder / "variants").glob("*.py"))),
    )


def _source_rules(data: dict[str, Any], course: Path) -> SourceRules:
    """The exercise's `source` rules, with what its course allows every engine exercise (course.yaml)."""
    rules = {key: tuple(names) for key, names in data.get("source", {}).items()}
    if data["engine"] != "torch":
        added = course_imports(course / COURSE_SETTINGS)
        rules["allow_imports"] = tuple(dict.fromkeys([*rules.get("allow_imports", ()), *added]))
    return SourceRules(**rules)


def _contract(data: dict[str, Any], where: Where) -> Contract:
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


def _autograd_rule(data: dict[str, Any], probes: tuple[Probe, ...], where: Where) -> None:
    """`autograd` is about torch, and `forbidden` leaves torch out of the tree: no torch for its probes either."""
    rule = data.get("autograd")
    if rule is not None and data["engine"] != "torch":
        raise where.error(("autograd",), f"is for engine: torch exercises; this one is engine: {data['engine']}.")
    if rule != "forbidden":
        return
    if data.get("forbid_ops"):
        raise where.error(("forbid_ops",), "cannot go with autograd: forbidden, which leaves torch out of the "
                                           "submission's tree: no torch operator can run there.")
    for i, probe in enumerate(probes):
        tensors = [spec.name for spec in probe.inputs if spec.kind == "tensor"]
        if tensors or "cuda" in probe.devices:
            raise where.error(("probes", i), f"uses {'a tensor input' if tensors else 'CUDA'}, but autograd: "
                                             "forbidden leaves torch out: its probes get numbers, on the CPU.")


def _tolerance(data: dict[str, float] | None, default: Tolerance) -> Tolerance:
    if data is None:
        return default
    return Tolerance(rtol=float(data.get("rtol", default.rtol)), atol=float(data.get("atol", default.atol)))


def _probe(data: dict[str, Any], at: At, where: Where, tolerance: Tolerance, cuda_tolerance: Tolerance,
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
        grades=tuple(data.get("grades", ())),
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
        line=line_of(where.lines, at),
    )


def _input(name: str, value: Any, at: At, where: Where, shared: bool = False) -> InputSpec:
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


def _tensor_input(name: str, value: dict[str, Any], at: At, where: Where) -> InputSpec:
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


def _tensor_reference(defines: dict[str, str], where: Where) -> None:
    """A tensor exercise's oracle is the tensor reference: it must know every name the exercise asks for."""
    from reference.tensor_tasks import reference_names  # numpy, and only for tensor exercises

    try:
        reference_names(object, tuple(defines.items()))
    except KeyError as exc:
        raise where.error(("defines",), f"{exc.args[0]}: engine tensor exercises ask for those names only.") \
            from None


def _compiles(text: str, mode: str, at: At, where: Where) -> None:
    try:
        compile(text, "<spec>", mode, dont_inherit=True)
    except SyntaxError as exc:
        raise where.error(at, f"is not valid Python: {exc.msg} (line {exc.lineno} of the code).",
                          line_offset=(exc.lineno or 1) - 1) from None


def _file(folder: Path, name: str, at: At, where: Where) -> Path:
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
