"""A TOML file as its messages name it: where in it a setting is written, and its values checked
against what they may hold. Every message about course.toml names the file, the line and the key
(`course.toml, line 12: assignments.hw1.deadline ...`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from grader.core.errors import GraderError


class TomlFile:
    """The file, its text, and where in it a key is."""

    def __init__(self, path: Path, source: str = "") -> None:
        self.path = path
        self.source = source

    def at(self, key: str) -> str:
        """`course.toml, line N` for a dotted key
        (assignments.hw1.deadline), or the file where it is not written."""
        table = ""
        for number, line in enumerate(self.source.splitlines(), 1):
            bare = line.strip()
            if bare.startswith("["):
                table = bare.strip("[] \t").split("#")[0].strip("[] \t")
            elif "=" in bare and not bare.startswith("#"):
                name = bare.split("=", 1)[0].strip().strip('"')
                if (f"{table}.{name}" if table else name) == key:
                    return f"{self.path}, line {number}"
        return str(self.path)

    def known(self, data: dict[str, Any], keys: frozenset[str], table: str) -> None:
        for key in data:
            if key not in keys:
                dotted = f"{table}.{key}" if table else key
                raise GraderError(
                    f"{self.at(dotted)}: {dotted} is not a setting of course.toml (a typo?); "
                    f"{'an assignment' if table else 'the course'} takes {', '.join(sorted(keys))}."
                )

    def choice(
        self, data: dict[str, Any], key: str, default: str, allowed: tuple[str, ...], why: str = ""
    ) -> str:
        value = self.text(data, key, default)
        if value not in allowed:
            raise GraderError(
                f"{self.at(key)}: {key} must be one of {', '.join(allowed)}{why}, not {value!r}."
            )
        return value

    def text(self, data: dict[str, Any], key: str, default: str) -> str:
        value = data.get(key, default)
        if not isinstance(value, str):
            raise GraderError(f"{self.at(key)}: {key} must be a string, not {value!r}.")
        return value

    def number(self, data: dict[str, Any], key: str, default: int, table: str = "") -> int:
        value = data.get(key, default)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            dotted = f"{table}.{key}" if table else key
            raise GraderError(
                f"{self.at(dotted)}: {dotted} must be a whole number of 0 or more, not {value!r}."
            )
        return value
