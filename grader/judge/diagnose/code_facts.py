"""Facts a submission's syntax tree settles about its
engine: shadowed methods, a walk read forwards, placeholders.

Each fact is claimed only where the tree shows it without doubt; any other way of writing the same
thing is not recognised, and then nothing is claimed (grader.judge.names keeps the facts):

- a method shadowed by an instance attribute that does nothing: `__init__` sets
  `self.backward = lambda: None` in a class that also defines `def backward`,
  so every instance's `backward` is the lambda, and the method never runs;
- a walk over an inputs-first list read forwards: a recursive visitor appends each node
  after visiting the nodes it was made from (post-order, so the output comes last), and
  backward() then calls each node's step in that list's own order, never reversed;
- results left at the starter's placeholder: a function whose returned names are only ever set to
  None (`out, cache = None, None` ... `return out, cache`), as CS231n's starters hand them out.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def shadowed(tree: ast.Module) -> frozenset[tuple[str, str]]:
    """(class, method) for each method the class's `__init__`
    hides behind an instance attribute of its name."""
    found: set[tuple[str, str]] = set()
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        methods = {m.name for m in node.body if isinstance(m, _FUNCTIONS) and not _is_property(m)}
        for init in (m for m in node.body if isinstance(m, _FUNCTIONS) and m.name == "__init__"):
            for statement in _straight(
                init.body
            ):  # every instance runs it: not under an if or a loop
                targets = (
                    statement.targets
                    if isinstance(statement, ast.Assign)
                    else [statement.target]
                    if isinstance(statement, ast.AnnAssign)
                    else []
                )
                value = (
                    statement.value if isinstance(statement, (ast.Assign, ast.AnnAssign)) else None
                )
                for target in targets:
                    if (
                        isinstance(target, ast.Attribute)
                        and isinstance(target.value, ast.Name)
                        and target.value.id == "self"
                        and target.attr in methods
                        and target.attr != "__init__"
                        and _does_nothing(value)
                    ):
                        found.add((node.name, target.attr))
    return frozenset(found)


def _does_nothing(value: ast.expr | None) -> bool:
    """`lambda: None`, `lambda *a: 0` or None itself:
    what stands in for the method does none of its work."""
    if isinstance(value, ast.Lambda):
        value = value.body
    return isinstance(value, ast.Constant)


def _straight(body: Sequence[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements a function always runs: its own, and those of a with or try block in it."""
    for statement in body:
        yield statement
        if isinstance(statement, (ast.With, ast.AsyncWith)):
            yield from _straight(statement.body)
        elif isinstance(statement, ast.Try):
            yield from _straight(statement.body)


def _is_property(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(
        (isinstance(d, ast.Name) and d.id == "property")
        or (isinstance(d, ast.Attribute) and d.attr in ("setter", "getter"))
        for d in function.decorator_list
    )


def forward_walks(tree: ast.Module) -> frozenset[str]:
    """The methods that call each node's step over a
    post-order (inputs-first) list in its own order."""
    found: set[str] = set()
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        for method in (m for m in node.body if isinstance(m, _FUNCTIONS)):
            lists = _postorder_lists(method)
            if lists and lists & _forward_walked(method):
                found.add(method.name)
    return frozenset(found)


def _postorder_lists(method: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The method's own list names that a visitor nested in
    it fills in post-order (each node after its inputs)."""
    found: set[str] = set()
    for visitor in (n for n in ast.walk(method) if isinstance(n, _FUNCTIONS) and n is not method):
        if not visitor.args.args:
            continue
        node = visitor.args.args[0].arg
        params = [a.arg for a in visitor.args.args]
        for body in _bodies(visitor):
            first = next(
                (
                    i
                    for i, statement in enumerate(body)
                    if isinstance(statement, ast.For)
                    and _over_attribute_of(statement.iter, node)
                    and _calls(statement.body, visitor.name)
                ),
                None,
            )
            if first is None:
                continue
            for appended in {
                name for later in body[first + 1 :] if (name := _appended(later, node)) is not None
            }:
                if (
                    appended in params
                ):  # the list is passed in: the method's name for it, at that position
                    found |= _passed_lists(method, visitor.name, params.index(appended))
                else:
                    found.add(appended)
    return found


def _bodies(function: ast.AST) -> Iterator[list[ast.stmt]]:
    """Every statement list inside `function` (its body,
    an if's, a loop's), not those of functions inside it."""
    todo: list[ast.AST] = [function]
    while todo:
        node = todo.pop()
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                yield block
                todo += [s for s in block if not isinstance(s, (*_FUNCTIONS, ast.ClassDef))]


def _over_attribute_of(expression: ast.expr, name: str) -> bool:
    """`v._prev`, `v.children`, `set(v._prev)`,
    `v._prev.values()`...: something read off node `name`."""
    return any(
        isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == name
        for n in ast.walk(expression)
    )


def _calls(body: Sequence[ast.stmt], function: str) -> bool:
    for statement in body:
        for n in ast.walk(statement):
            if not isinstance(n, ast.Call):
                continue
            if isinstance(n.func, ast.Name) and n.func.id == function:
                return True
            if isinstance(n.func, ast.Attribute) and n.func.attr == function:
                return True
    return False


def _appended(statement: ast.stmt, node: str) -> str | None:
    """The list `statement` appends `node` to (`topo.append(v)`), if it does."""
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        call, func = statement.value, statement.value.func
        if (
            isinstance(func, ast.Attribute)
            and func.attr == "append"
            and isinstance(func.value, ast.Name)
            and len(call.args) == 1
            and isinstance(call.args[0], ast.Name)
            and call.args[0].id == node
        ):
            return func.value.id
    return None


def _passed_lists(method: ast.AST, visitor: str, position: int) -> set[str]:
    found = set()
    for call in ast.walk(method):
        if (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Name)
            and call.func.id == visitor
            and len(call.args) > position
        ):
            given = call.args[position]
            if isinstance(given, ast.Name):
                found.add(given.id)
    return found


def _forward_walked(method: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The lists the method walks in their own order calling each
    node's step (`for t in topo: t._backward()`), less those it
    reverses, reorders or rebinds anywhere (one walk of the method)."""
    walked: set[str] = set()
    changed: set[str] = set()
    for node in ast.walk(method):
        func = node.func if isinstance(node, ast.Call) else None
        if (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.attr in ("reverse", "insert", "sort")
        ):
            changed.add(func.value.id)
        elif (
            isinstance(node, ast.Call)
            and isinstance(func, ast.Name)
            and func.id in ("reversed", "sorted")
        ):
            changed |= {a.id for a in node.args if isinstance(a, ast.Name)}
        elif (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Name)
            and isinstance(node.slice, ast.Slice)
        ):
            changed.add(node.value.id)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            changed.add(node.target.id)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                changed |= _rebound(target, node.value)
        elif (
            isinstance(node, ast.For)
            and isinstance(node.iter, ast.Name)
            and isinstance(node.target, ast.Name)
            and _steps(node.body, node.target.id)
        ):
            walked.add(node.iter.id)
    return walked - changed


def _rebound(target: ast.expr, value: ast.expr | None) -> set[str]:
    """The names `target = value` binds to anything but a
    new empty list (`order, seen = [], set()` is a start)."""
    if isinstance(target, ast.Name):
        empty = (isinstance(value, ast.List) and not value.elts) or (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Name)
            and value.func.id == "list"
            and not value.args
        )
        return set() if empty else {target.id}
    if isinstance(target, (ast.Tuple, ast.List)):
        values: Sequence[ast.expr | None] = (
            value.elts
            if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts)
            else [None] * len(target.elts)
        )
        return set().union(*(_rebound(t, v) for t, v in zip(target.elts, values, strict=True)))
    return set()


def _steps(body: Sequence[ast.stmt], node: str) -> bool:
    """The loop's body runs its node's step: calls a method of it with no arguments
    (`t._backward()`), or sends its grad on (`parent.grad += t.grad * slope`)."""
    calls = any(
        isinstance(s, ast.Expr)
        and isinstance(s.value, ast.Call)
        and not s.value.args
        and isinstance(s.value.func, ast.Attribute)
        and isinstance(s.value.func.value, ast.Name)
        and s.value.func.value.id == node
        for s in body
    )
    if calls:
        return True
    for statement in body:
        for n in ast.walk(statement):
            if isinstance(n, ast.AugAssign) and _reads_grad_of(n.value, node):
                return True
    return False


def _reads_grad_of(expression: ast.expr, node: str) -> bool:
    """`expression` reads `node.grad`."""
    return any(
        isinstance(r, ast.Attribute)
        and r.attr == "grad"
        and isinstance(r.value, ast.Name)
        and r.value.id == node
        for r in ast.walk(expression)
    )


def placeholder_returns(tree: ast.Module) -> dict[str, tuple[str, ...]]:
    """Each function and method whose results are, at some positions, names only
    ever set to None: position by position, the name where it is such a placeholder
    in every return, else "" (`return out, cache` after `out, cache = None, None`
    is ("out", "cache"); once only `out = ...` is written, ("", "cache"))."""
    found: dict[str, tuple[str, ...]] = {}
    for function, _ in top_functions(tree):
        returned = [r.value for r in _own(function) if isinstance(r, ast.Return)]
        shapes = [
            value.elts if isinstance(value, ast.Tuple) else [value]
            for value in returned
            if value is not None
        ]
        if (
            not shapes
            or len(shapes) != len(returned)
            or len({len(elements) for elements in shapes}) != 1
        ):
            continue
        nothing = _only_none(function)
        names = [
            {
                e.id if isinstance(e, ast.Name) and e.id in nothing else ""
                for e in (elements[i] for elements in shapes)
            }
            for i in range(len(shapes[0]))
        ]
        positions = tuple(next(iter(n)) if len(n) == 1 else "" for n in names)
        if any(positions):
            found[function.name] = positions
    return found


def top_functions(tree: ast.Module) -> list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, bool]]:
    """The module's functions, then its classes' methods, each with whether it is a method."""
    found: list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, bool]] = []
    for node in tree.body:
        if isinstance(node, _FUNCTIONS):
            found.append((node, False))
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            found += [(m, True) for m in node.body if isinstance(m, _FUNCTIONS)]
    return found


def _own(function: ast.AST) -> Iterator[ast.AST]:
    """The nodes of `function`'s own body, not of the functions and classes defined in it."""
    todo = list(ast.iter_child_nodes(function))
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, (*_FUNCTIONS, ast.Lambda, ast.ClassDef)):
            todo += ast.iter_child_nodes(node)


def _only_none(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The names every binding of which in the function
    is None (a parameter is bound by the caller)."""
    every = {
        a.arg for a in (*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs)
    }
    every |= {a.arg for a in (function.args.vararg, function.args.kwarg) if a is not None}
    bound: dict[str, bool] = {}
    for node in _own(function):
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            every.update(node.names)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                _bind(target, node.value, bound)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor, ast.NamedExpr)):
            target = node.target
            value = node.value if isinstance(node, (ast.AnnAssign, ast.NamedExpr)) else None
            _bind(target, value if not isinstance(node, ast.AugAssign) else None, bound)
        elif isinstance(node, (ast.withitem,)) and node.optional_vars is not None:
            _bind(node.optional_vars, None, bound)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound[node.name] = False
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                bound[(alias.asname or alias.name).split(".")[0]] = False
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound[node.name] = False
    # a name a function inside rebinds (nonlocal) is not the outer one's alone
    for inner in (n for n in ast.walk(function) if isinstance(n, ast.Nonlocal)):
        every.update(inner.names)
    return {name for name, none in bound.items() if none and name not in every}


def _bind(target: ast.expr, value: ast.expr | None, bound: dict[str, bool]) -> None:
    """Note each name `target` binds, and whether to
    None (position by position for `a, b = None, None`)."""
    if isinstance(target, ast.Name):
        none = isinstance(value, ast.Constant) and value.value is None
        bound[target.id] = bound.get(target.id, True) and none
    elif isinstance(target, (ast.Tuple, ast.List)):
        values: Sequence[ast.expr | None] = (
            value.elts
            if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts)
            else [None] * len(target.elts)
        )
        for element, part in zip(target.elts, values, strict=True):
            _bind(element.value if isinstance(element, ast.Starred) else element, part, bound)
