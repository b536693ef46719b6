"""Spec files read as YAML 1.2 with the line of every value, and checked against
their JSON Schema: every message names the file, the line and the field."""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from grader.core.errors import SpecError
from grader.core.exercise import FORMAT_HELP


def read_spec(path: Path, missing: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SpecError(f"{path}: no such file. {missing}") from None
    except UnicodeDecodeError as exc:
        raise SpecError(f"{path}: not UTF-8 text (byte {exc.start}). Save it as UTF-8.") from None
    except OSError as exc:
        raise SpecError(f"{path}: cannot be read ({exc.strerror}).") from None


class Loader(yaml.SafeLoader):
    """SafeLoader that also reads YAML 1.2 floats such as 1e-6 (YAML 1.1 leaves them as strings)."""


#: libyaml's parser where PyYAML has it: the same nodes and marks, ten times faster than pure Python
_Composer: type[yaml.SafeLoader] = (
    type("_Composer", (yaml.CSafeLoader,), {}) if yaml.__with_libyaml__ else Loader
)

_YAML12_FLOAT = re.compile(
    r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?
    |[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)
    |\.[0-9_]+(?:[eE][-+]?[0-9]+)?
    |[-+]?\.(?:inf|Inf|INF)
    |\.(?:nan|NaN|NAN))$""",
    re.X,
)
Loader.add_implicit_resolver("tag:yaml.org,2002:float", _YAML12_FLOAT, list("-+0123456789."))
if _Composer is not Loader:
    _Composer.add_implicit_resolver("tag:yaml.org,2002:float", _YAML12_FLOAT, list("-+0123456789."))


At = tuple[str | int, ...]


def parse_yaml(text: str, path: Path) -> tuple[Any, dict[At, int]]:
    try:
        node = yaml.compose(text, Loader=_Composer)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"line {mark.line + 1}" if mark is not None else "somewhere"
        raise SpecError(f"{path}, {where}: not valid YAML: {exc.problem or exc.context}.") from None
    except yaml.YAMLError as exc:
        raise SpecError(f"{path}: not valid YAML: {exc}.") from None
    if node is None:
        raise SpecError(
            f"{path}: the file is empty; an exercise needs at least id, title, points, engine, "
            f"defines and probes ({FORMAT_HELP})."
        )
    lines: dict[At, int] = {}
    try:
        return _plain(node, (), lines, Loader(""), path), lines
    except (
        yaml.MarkedYAMLError
    ) as exc:  # e.g. a tag such as !!python/object, which a spec never needs
        mark = exc.problem_mark or exc.context_mark
        where = f"line {mark.line + 1}" if mark is not None else "somewhere"
        raise SpecError(
            f"{path}, {where}: not valid YAML for a spec: {exc.problem or exc.context}."
        ) from None


def _plain(node: yaml.Node, at: At, lines: dict[At, int], loader: Loader, path: Path) -> Any:
    # Block scalars (code: |) start on the line after their key.
    lines[at] = node.start_mark.line + 1 + (1 if getattr(node, "style", None) in ("|", ">") else 0)
    if isinstance(node, yaml.MappingNode):
        result: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise SpecError(
                    f"{path}, line {key_node.start_mark.line + 1}: {field_name(at)}: "
                    "keys must be plain names, not lists or mappings."
                )
            key = str(key_node.value)
            if key in result:
                raise SpecError(
                    f"{path}, line {key_node.start_mark.line + 1}: "
                    f"{field_name(at + (key,))} appears twice; "
                    f"remove one."
                )
            result[key] = _plain(value_node, at + (key,), lines, loader, path)
        return result
    if isinstance(node, yaml.SequenceNode):
        return [_plain(item, at + (i,), lines, loader, path) for i, item in enumerate(node.value)]
    return loader.construct_object(node)


def field_name(at: At) -> str:
    text = ""
    for part in at:
        if isinstance(part, int):
            text += f"[{part}]"
        elif not part.isprintable() or not part.strip() or part != part.strip():
            # a key with line breaks or odd spaces, shown so that the message stays one line
            text += f"[{part!r}]"
        else:
            text += f".{part}" if text else part
    return text or "the top level"


def line_of(lines: dict[At, int], at: At) -> int:
    while at not in lines:
        at = at[:-1]
    return lines[at]


class Where:
    """Builds 'file, line N, field: problem' messages for one spec."""

    def __init__(self, path: Path, lines: dict[At, int]) -> None:
        self.path, self.lines = path, lines

    def error(self, at: At, problem: str, line_offset: int = 0) -> SpecError:
        return SpecError(
            f"{self.path}, line {line_of(self.lines, at) + line_offset}: "
            f"{field_name(at)}: {problem}"
        )


def schema_text(kind: str = "exercise") -> str:
    """The JSON Schema the loader checks every spec
    against (`grade schema` prints it, for editors)."""
    return resources.files("grader").joinpath(f"schemas/{kind}.schema.json").read_text("utf-8")


def parse_spec(path: Path) -> Any:
    """A spec file's data, read as the loader reads
    it (YAML 1.2 floats such as 1e-6 are numbers)."""
    return parse_yaml(read_spec(path, "No such spec."), path)[0]


@cache
def _validator(kind: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(json.loads(schema_text(kind)))


def check_schema(data: Any, lines: dict[At, int], path: Path, kind: str) -> None:
    error = jsonschema.exceptions.best_match(_validator(kind).iter_errors(data))
    if error is None:
        return
    at: At = tuple(error.absolute_path)
    raise Where(path, lines).error(at, f"{_explain(error)} ({FORMAT_HELP}).")


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
            described = schema.get("description", "as documented")
            return f"{got!r} is not a valid value here: it must be {described}"
        case "exclusiveMinimum":
            return f"must be more than {rule}, got {got!r}"
        case "minimum":
            return f"must be at least {rule}, got {got!r}"
        case "pattern":
            return f"{got!r} does not have the allowed form (pattern {rule})"
    return str(error.message)


def _type_words(kind: object) -> str:
    words = {
        "number": "a number",
        "string": "text",
        "object": "a mapping (key: value lines)",
        "array": "a list (lines starting with '-')",
        "boolean": "true or false",
        "integer": "a whole number",
    }
    return words.get(str(kind), str(kind))
