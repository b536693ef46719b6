"""Source rules, read from the submission's syntax tree on the trusted side: the calls it must and must not make,
and, as an early word, the imports its exercise does not allow (the child's guard enforces those)."""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from grader.core.exercise import SourceRules
from grader.run.load import SourceCell


@dataclass(frozen=True, slots=True)
class Violation:
    rule: str
    line: int | None
    #: "cell 7" in a notebook; "" in a .py file
    cell: str = ""

    def describe(self) -> str:
        if self.line is None:
            return self.rule
        return f"{self.rule} ({self.cell + ', ' if self.cell else ''}line {self.line})"


def check_source(cells: Sequence[SourceCell], rules: SourceRules,
                 scope: Sequence[str] | None = None) -> tuple[Violation, ...]:
    """Every call rule the source breaks; cells that do not parse are skipped (the run reports them).

    With `scope`, only the definitions of those names are checked: a notebook that answers several
    exercises calls backward() for one while another's `Dual` must not.
    """
    if not (rules.require_calls or rules.forbid_calls):
        return ()
    found: list[Violation] = []
    called: set[str] = set()
    for cell, root in _roots(cells, scope):
        for node in ast.walk(root):
            if isinstance(node, ast.Call) and (name := _called_name(node.func)) is not None:
                called.add(name)
                if name in rules.forbid_calls:
                    found.append(Violation(f"it calls {name}()", node.lineno, cell))
    found += [Violation(f"it never calls {name}()", None) for name in rules.require_calls if name not in called]
    return tuple(sorted(found, key=lambda v: (v.cell, v.line or 0, v.rule)))


def import_notes(cells: Sequence[SourceCell], permits: Callable[[str], bool], exercise_id: str,
                 own_modules: Sequence[str] = ()) -> tuple[str, ...]:
    """An early word on each import of a module the exercise does not allow (the guard refuses it when run)."""
    notes = []
    for cell, root in _roots(cells, None):
        for node in ast.walk(root):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module] if node.module and not node.level else []
            for name in names:
                if not permits(name) and name.partition(".")[0] not in own_modules:
                    place = f"{cell}, line {node.lineno}" if cell else f"line {node.lineno}"
                    notes.append(f"{place} imports {name}, which exercise {exercise_id} does not allow: where that "
                                 f"line runs, {name.partition('.')[0]} is a placeholder that fails when used.")
    return tuple(dict.fromkeys(notes))


def _roots(cells: Sequence[SourceCell], scope: Sequence[str] | None) -> list[tuple[str, ast.AST]]:
    roots: list[tuple[str, ast.AST]] = []
    for cell in cells:
        try:
            tree = ast.parse(cell.source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        label = cell.label if cell.label.startswith("cell ") else ""
        roots += [(label, tree)] if scope is None else [
            (label, node) for node in tree.body
            if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in scope]
    return roots


def _called_name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None
