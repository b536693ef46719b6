"""A submission's source parsed on the trusted side: total, so that no source can make the grader
raise.

CPython's parser is linear and guards its own recursion, but a cell of ten thousand `+` terms raises
RecursionError while the tree is built, `------1` a MemoryError, a NUL byte a ValueError. Each of
these is the submission's problem, which the run reports from the child (where the same source fails
to compile); here it only means that the syntax tree is not known. Sources are already capped in
size by grader.run.read.load. Code that walks a tree must do so iteratively (`ast.walk`): a tree can
be ~1000 deep.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence


def syntax_tree(source: str) -> ast.Module | None:
    """`source`'s syntax tree, or None where the parser fails on it in any way."""
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None


def statements(body: Sequence[ast.stmt], *, into_definitions: bool = True) -> Iterator[ast.stmt]:
    """Every statement of `body` and of the blocks inside it (branches, loops, with, handlers, match
    cases), in source order, iteratively; with `into_definitions` False, a def's or a class's own
    body is not entered (what a class body defines, and not what its methods do)."""
    pending = list(reversed(body))
    while pending:
        statement = pending.pop()
        yield statement
        if not into_definitions and isinstance(
            statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
        ):
            continue
        inner: list[ast.stmt] = list(getattr(statement, "body", ()))
        for part in (*getattr(statement, "handlers", ()), *getattr(statement, "cases", ())):
            inner += part.body
        inner += [*getattr(statement, "orelse", ()), *getattr(statement, "finalbody", ())]
        pending.extend(reversed(inner))
