"""Source rules, checked on the submission's syntax tree on the trusted side: imports and calls."""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass

from grader.load import SourceCell
from grader.spec import SourceRules

# Ways to import a module without an import statement; forbidden wherever an import is.
_DYNAMIC_IMPORTS = {"__import__", "import_module", "exec", "eval", "compile"}


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
    """Every rule the source breaks; cells that do not parse are skipped (the run reports them).

    With `scope`, only the definitions of those names are checked: a notebook that answers several
    exercises may import torch for one while another's `Node` must not use it.
    """
    if not (rules.forbid_imports or rules.require_calls or rules.forbid_calls):
        return ()
    found: list[Violation] = []
    called: set[str] = set()
    for cell in cells:
        try:
            tree = ast.parse(cell.source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        label = cell.label if cell.label.startswith("cell ") else ""
        roots: list[ast.AST] = [tree] if scope is None else [
            node for node in tree.body
            if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in scope]
        for root in roots:
            found += _violations(root, rules, label, called, scoped=scope is not None)
    found += [Violation(f"it never calls {name}()", None) for name in rules.require_calls if name not in called]
    return tuple(sorted(found, key=lambda v: (v.cell, v.line or 0, v.rule)))


def _violations(root: ast.AST, rules: SourceRules, cell: str, called: set[str], *, scoped: bool) -> list[Violation]:
    found = []
    for node in ast.walk(root):
        if isinstance(node, ast.Import) and rules.forbid_imports:
            found += [Violation(f"it imports {alias.name}", node.lineno, cell)
                      for alias in node.names if _forbidden(alias.name, rules.forbid_imports)]
        elif isinstance(node, ast.ImportFrom) and rules.forbid_imports and node.module:
            if _forbidden(node.module, rules.forbid_imports):
                found.append(Violation(f"it imports from {node.module}", node.lineno, cell))
            elif node.module == "importlib":
                found.append(Violation("it imports from importlib (dynamic imports)", node.lineno, cell))
        elif isinstance(node, ast.Name) and scoped and _forbidden(node.id, rules.forbid_imports):
            found.append(Violation(f"its definition uses {node.id}", node.lineno, cell))
        elif isinstance(node, ast.Call):
            name = _called_name(node.func)
            if name is None:
                continue
            called.add(name)
            if name in rules.forbid_calls:
                found.append(Violation(f"it calls {name}()", node.lineno, cell))
            elif rules.forbid_imports and name in _DYNAMIC_IMPORTS:
                found.append(Violation(f"it calls {name}(), which can import anything", node.lineno, cell))
        elif isinstance(node, ast.Attribute) and rules.forbid_imports and node.attr == "modules" \
                and isinstance(node.value, ast.Name) and node.value.id == "sys":
            found.append(Violation("it reaches into sys.modules", node.lineno, cell))
    return found


def _forbidden(module: str, forbidden: tuple[str, ...]) -> bool:
    return any(module == name or module.startswith(name + ".") for name in forbidden)


def _called_name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None
