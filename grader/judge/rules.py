"""Source rules, read from the submission's syntax tree on the trusted
side: the calls it must and must not make, and, as an early word, the
imports its exercise does not allow (the child's guard enforces those)."""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from grader.core.exercise import SourceRules
from grader.run.read.load import SourceCell
from grader.run.read.syntax import statements, syntax_tree


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


def check_source(
    cells: Sequence[SourceCell], rules: SourceRules, scope: Sequence[str] | None = None
) -> tuple[Violation, ...]:
    """Every call rule the source breaks; cells that
    do not parse are skipped (the run reports them).

    A call counts under the name it calls through: `_d = torch.autograd.grad; _d(...)`,
    `from torch.autograd import grad as g`, `getattr(torch.autograd, "grad")(...)` all
    call grad. This is the early, friendly word: a name built at run time escapes any
    reading of the source, so what an exercise must be sure of is proved by what runs
    (`autograd`, `forbid_ops`, a tree without torch: grader.run.child.evidence).

    With `scope`, only the definitions of those names are checked: a notebook that answers several
    exercises calls backward() for one while another's `Dual` must not.
    """
    if not (rules.require_calls or rules.forbid_calls):
        return ()
    found: list[Violation] = []
    called: set[str] = set()
    watched = frozenset(rules.require_calls) | frozenset(rules.forbid_calls)
    trees = _trees(
        cells
    )  # parsed once: aliases are read from the whole source, calls from the scope
    aliases = _aliases([tree for _, tree in trees], watched)
    for cell, root in _scoped(trees, scope):
        for node in ast.walk(root):
            if (
                isinstance(node, ast.Call)
                and (name := _called_name(node.func, aliases)) is not None
            ):
                called.add(name)
                if name in rules.forbid_calls:
                    found.append(Violation(f"it calls {name}()", node.lineno, cell))
    found += [
        Violation(f"it never calls {name}()", None)
        for name in rules.require_calls
        if name not in called
    ]
    return tuple(sorted(dict.fromkeys(found), key=lambda v: (v.cell, v.line or 0, v.rule)))


#: how many rounds of `a = b` are followed (each round follows one more link of a chain)
_ALIAS_ROUNDS = 8


def _aliases(roots: Sequence[ast.AST], watched: frozenset[str]) -> dict[str, str]:
    """Names bound to a watched callable, anywhere in
    the source: by import, by assignment, by getattr."""
    aliases: dict[str, str] = {}
    bindings: list[tuple[str, ast.expr]] = []
    for root in roots:
        for node in ast.walk(root):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for item in node.names:
                    name = item.name.rpartition(".")[2]
                    if item.asname and name in watched:
                        aliases[item.asname] = name
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    bindings += _pairs(target, node.value)
            elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
                bindings += _pairs(node.target, node.value)
    for _ in range(_ALIAS_ROUNDS):
        before = len(aliases)
        for bound, value in bindings:
            via = _called_name(value, aliases)
            if via is not None and via in watched and bound not in aliases:
                aliases[bound] = via
        if len(aliases) == before:
            break
    return aliases


def _pairs(target: ast.expr, value: ast.expr) -> list[tuple[str, ast.expr]]:
    """(name, value) for each name an assignment binds:
    `a = v`, and `a, b = v, w` element by element."""
    if isinstance(target, ast.Name):
        return [(target.id, value)]
    if (
        isinstance(target, (ast.Tuple, ast.List))
        and isinstance(value, (ast.Tuple, ast.List))
        and len(target.elts) == len(value.elts)
    ):
        pairs = []
        for t, v in zip(target.elts, value.elts, strict=True):
            pairs += _pairs(t, v)
        return pairs
    return []


def import_notes(
    cells: Sequence[SourceCell],
    permits: Callable[[str], bool],
    exercise_id: str,
    own_modules: Sequence[str] = (),
) -> tuple[str, ...]:
    """An early word on each import of a module the exercise
    does not allow (the guard refuses it when run)."""
    notes = []
    # an import statement spells `import`: a cell without the word has none, and is not
    # parsed here; in one that has, only statements are visited (an import is one), not
    # every expression (a walk of every node was a fifth of grading a correct submission)
    for cell, root in _trees([c for c in cells if "import" in c.source]):
        for node in statements(root.body):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module]
                if node.module and not node.level
                else []
            )
            for name in names:
                if not permits(name) and name.partition(".")[0] not in own_modules:
                    place = f"{cell}, line {node.lineno}" if cell else f"line {node.lineno}"
                    notes.append(
                        f"{place} imports {name}, which exercise {exercise_id} does "
                        f"not allow: where that line runs, {name.partition('.')[0]} "
                        "is a placeholder that fails when used."
                    )
    return tuple(dict.fromkeys(notes))


def _trees(cells: Sequence[SourceCell]) -> list[tuple[str, ast.Module]]:
    """Each cell's syntax tree, labelled; cells the
    parser fails on are left out (the run reports them)."""
    trees: list[tuple[str, ast.Module]] = []
    for cell in cells:
        tree = syntax_tree(cell.source)
        if tree is not None:
            trees.append((cell.label if cell.label.startswith("cell ") else "", tree))
    return trees


def _scoped(
    trees: list[tuple[str, ast.Module]], scope: Sequence[str] | None
) -> list[tuple[str, ast.AST]]:
    """The trees, or with `scope` only the top-level definitions of those names."""
    if scope is None:
        return list(trees)
    scoped: list[tuple[str, ast.AST]] = []
    for label, tree in trees:
        for node in tree.body:
            if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                if node.name in scope:
                    scoped.append((label, node))
    return scoped


def _called_name(func: ast.expr, aliases: dict[str, str] | None = None) -> str | None:
    """The name a call goes through: `f`, `x.f`, an
    alias of a watched name, or `getattr(x, "f")`."""
    if isinstance(func, ast.Name):
        return (aliases or {}).get(func.id, func.id)
    if isinstance(func, ast.Attribute):
        return func.attr
    if (
        isinstance(func, ast.Call)
        and isinstance(func.func, ast.Name)
        and func.func.id == "getattr"
        and len(func.args) >= 2
        and isinstance(func.args[1], ast.Constant)
        and isinstance(func.args[1].value, str)
    ):
        return func.args[1].value
    return None
