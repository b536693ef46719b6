"""tests/README.md maps every module to its tests, and cannot go stale: each module of grader/
and reference/ has one line, each line names test files that exist and at least every one that
imports its module (read from the tests' syntax trees by tests/module_map.py), and every test
file is named."""

from __future__ import annotations

from collections import Counter

from module_map import (
    README,
    ROOT,
    Line,
    direct_imports,
    imported_modules,
    readme_lines,
    suite_files,
)

#: a line may name a few of its module's importers, and end "and every test file that imports it",
#: only where there are more than this many: a module with few has them all on its line
LISTED_IN_FULL = 6


def _lines_of(module: str, lines: list[Line]) -> list[Line]:
    return [line for line in lines if line.covers(module)]


def test_every_module_has_one_line_and_every_line_a_module() -> None:
    lines = readme_lines()
    modules = direct_imports()
    problems = []
    for module in modules:
        found = len(_lines_of(module, lines))
        if found != 1:
            problems.append(f"{module}: {found} lines, where one is wanted")
    for line in lines:
        if not any(line.covers(module) for module in modules):
            problems.append(f"{line.target}: a line, but no such module of grader/ or reference/")
    assert not problems, "\n".join(problems)


def test_every_test_file_a_line_names_exists_once_on_it() -> None:
    wrong = []
    for line in readme_lines():
        for name in line.tests:
            if not (name.startswith("tests/test_") and (ROOT / name).is_file()):
                wrong.append(f"{line.target}: {name!r} is no test file")
        wrong += [
            f"{line.target}: {name} twice" for name, n in Counter(line.tests).items() if n > 1
        ]
    assert not wrong, "\n".join(wrong)


def test_every_test_file_is_named() -> None:
    text = README.read_text(encoding="utf-8")
    unnamed = [test.name for test in suite_files() if f"tests/{test.name}" not in text]
    assert not unnamed, f"tests/README.md names none of {unnamed}"


def test_each_line_names_every_test_file_that_imports_its_module() -> None:
    lines = readme_lines()
    wrong = []
    for module, importers in direct_imports().items():
        for line in _lines_of(module, lines):
            left_out = sorted(set(importers) - set(line.tests))
            if line.every_importer and len(importers) <= LISTED_IN_FULL:
                wrong.append(
                    f"{module}: its line ends 'and every test file that imports it', but its "
                    f"{len(importers)} importers are few enough to name: {importers}"
                )
            elif left_out and not line.every_importer:
                wrong.append(f"{module}: imported by {left_out}, which its line does not name")
    assert not wrong, "\n".join(wrong)


def test_the_map_reads_every_kind_of_import() -> None:
    """At the top or inside a function; a submodule imported by name from its package, and a name
    imported from a module (which imports that module, not a submodule of that name)."""
    modules = {
        "grader.run.sandbox",
        "grader.run.wire",
        "grader.judge.catalog",
        "reference.scalar",
        "grader.cli",
    }
    source = (
        "import grader.cli\n"
        "from grader.run import sandbox\n"
        "from grader.judge.catalog import Catalog\n"
        "def test() -> None:\n"
        "    from reference.scalar import Node\n"
        "    import os.path\n"
    )
    found = imported_modules(source, modules)
    assert found == {"grader.cli", "grader.run.sandbox", "grader.judge.catalog", "reference.scalar"}
