"""Source rules, checked on the submission's syntax tree on the trusted side: imports and calls."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from grader.spec import SourceRules

# Ways to import a module without an import statement; forbidden wherever an import is.
_DYNAMIC_IMPORTS = {"__import__", "import_module", "exec", "eval", "compile"}


@dataclass(frozen=True, slots=True)
class Violation:
    rule: str
    line: int | None

    def describe(self) -> str:
        return self.rule + (f" (line {self.line})" if self.line else "")


def check_source(source: str, rules: SourceRules) -> tuple[Violation, ...]:
    """Every rule the source breaks, in line order; none if it does not parse (the run says why)."""
    if not (rules.forbid_imports or rules.require_calls or rules.forbid_calls):
        return ()
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ()
    found: list[Violation] = []
    called: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and rules.forbid_imports:
            found += [Violation(f"it imports {alias.name}", node.lineno)
                      for alias in node.names if _forbidden(alias.name, rules.forbid_imports)]
        elif isinstance(node, ast.ImportFrom) and rules.forbid_imports and node.module:
            if _forbidden(node.module, rules.forbid_imports):
                found.append(Violation(f"it imports from {node.module}", node.lineno))
            elif node.module == "importlib":
                found.append(Violation("it imports from importlib (dynamic imports)", node.lineno))
        elif isinstance(node, ast.Call):
            name = _called_name(node.func)
            if name is None:
                continue
            called.add(name)
            if name in rules.forbid_calls:
                found.append(Violation(f"it calls {name}()", node.lineno))
            elif rules.forbid_imports and name in _DYNAMIC_IMPORTS:
                found.append(Violation(f"it calls {name}(), which can import anything", node.lineno))
        elif isinstance(node, ast.Attribute) and rules.forbid_imports and node.attr == "modules" \
                and isinstance(node.value, ast.Name) and node.value.id == "sys":
            found.append(Violation("it reaches into sys.modules", node.lineno))
    found += [Violation(f"it never calls {name}()", None)
              for name in rules.require_calls if name not in called]
    return tuple(sorted(found, key=lambda v: (v.line or 0, v.rule)))


def _forbidden(module: str, forbidden: tuple[str, ...]) -> bool:
    return any(module == name or module.startswith(name + ".") for name in forbidden)


def _called_name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None
