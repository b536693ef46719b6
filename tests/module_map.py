"""Which test files import each module of grader/ and reference/, read from their syntax trees.

Not a test file: tests/test_test_map.py checks tests/README.md against `direct_imports()`, and

    python tests/module_map.py grader/judge/diagnose/faults.py

prints the test files that import a module, then those tests/README.md names for it (those
that import it, and those that exercise it end to end), each list ready for `python -m pytest`.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
README = TESTS / "README.md"
PACKAGES = ("grader", "reference")

#: a module's line in tests/README.md, "- `grader/x.py`: tests/test_a.py, tests/test_b.py", or a
#: folder's ("- `grader/x/`: ...") for every module in it
LINE = re.compile(r"^- `([\w/]+(?:\.py|/))`: (.+)$")
#: how a line ends that names a few of the many test files importing its module, not all of them
EVERY_IMPORTER = "; and every test file that imports it"


def _defines_code(path: Path) -> bool:
    """Whether a package's __init__.py defines a function or a class, beyond importing names."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(
        isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        for node in tree.body
    )


def module_paths() -> dict[str, str]:
    """Every module of grader/ and reference/, dotted name to path: a package's __init__.py only
    where it defines code of its own (grader.outputs.formats' `render`), not where it re-exports."""
    found: dict[str, str] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if path.name == "__init__.py":
                if not _defines_code(path):
                    continue
                parts = parts[:-1]
            found[".".join(parts)] = path.relative_to(ROOT).as_posix()
    return found


def imported_modules(source: str, modules: Collection[str]) -> set[str]:
    """The modules among `modules` a source imports, inside functions too: `import a.b`, and
    `from a.b import c`, which imports a.b.c where that is a module, else a.b (c names a thing)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                submodule = f"{node.module}.{alias.name}"
                found.add(submodule if submodule in modules else node.module)
    return found & set(modules)


def suite_files() -> list[Path]:
    return sorted(TESTS.glob("test_*.py"))


def direct_imports() -> dict[str, list[str]]:
    """Each module's path to the test files that import it directly (none for about half)."""
    modules = module_paths()
    importers: dict[str, list[str]] = {path: [] for path in modules.values()}
    for test in suite_files():
        for name in sorted(imported_modules(test.read_text(encoding="utf-8"), modules)):
            importers[modules[name]].append(test.relative_to(ROOT).as_posix())
    return importers


@dataclass(frozen=True)
class Line:
    """One line of tests/README.md's map."""

    #: a module's path, or a folder's (ending in /) for every module in it
    target: str
    tests: tuple[str, ...]
    #: the line ends in EVERY_IMPORTER: its module's importers are more than it names
    every_importer: bool

    def covers(self, module: str) -> bool:
        return module == self.target or (
            self.target.endswith("/") and module.startswith(self.target)
        )


def readme_lines() -> list[Line]:
    """tests/README.md's map, line by line."""
    lines = []
    for text in README.read_text(encoding="utf-8").splitlines():
        match = LINE.match(text)
        if match:
            names, every = match[2], match[2].endswith(EVERY_IMPORTER)
            if every:
                names = names.removesuffix(EVERY_IMPORTER)
            tests = tuple(name.strip() for name in names.split(","))
            lines.append(Line(match[1], tests, every))
    return lines


def _as_path(argument: str) -> str:
    """A module given as a path (grader/run/sandbox.py, from the repository's root or absolute) or
    as a dotted name (grader.run.sandbox)."""
    if not argument.endswith(".py"):
        return module_paths().get(argument, argument)
    path = Path(argument)
    if path.is_absolute() and path.is_relative_to(ROOT):
        path = path.relative_to(ROOT)
    return path.as_posix().removeprefix("./")


def main(arguments: list[str]) -> int:
    if not arguments:
        print("usage: python tests/module_map.py MODULE...", file=sys.stderr)
        print(
            "  a module as a path (grader/run/sandbox.py) or a name (grader.run.sandbox)",
            file=sys.stderr,
        )
        return 2
    importers = direct_imports()
    lines = readme_lines()
    for argument in arguments:
        path = _as_path(argument)
        if path not in importers:
            print(f"{argument}: not a module of grader/ or reference/", file=sys.stderr)
            return 2
        mapped = [line for line in lines if line.covers(path)]
        print(path)
        tests = importers[path]
        print(f"  imported by {len(tests)}: {' '.join(tests)}" if tests else "  imported by none")
        for line in mapped:
            also = f" ({EVERY_IMPORTER.removeprefix('; ')})" if line.every_importer else ""
            print(f"  tests/README.md: {' '.join(line.tests)}{also}")
        if not mapped:
            print("  tests/README.md: no line")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
