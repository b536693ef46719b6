"""What a submission defines, read from its syntax tree
on the trusted side: classes, their methods, functions.

The grader runs none of the student's code here. These facts let a diagnosis check what an error
message is about (does the class named in "unsupported operand type(s) for -: 'Value' and 'Value'"
define `__sub__`?) and let a report say what a file defines when the exercise's names are missing.
A fact that the syntax tree cannot settle (a class with bases, a name made at run time) is `None`:
unknown, so nothing is claimed from it.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass, field

from grader.judge.diagnose.code_facts import forward_walks, placeholder_returns, shadowed
from grader.run.read.load import SourceCell
from grader.run.read.syntax import statements, syntax_tree


@dataclass(frozen=True, slots=True)
class ClassFacts:
    name: str
    #: methods and class attributes: `def __add__`, `__radd__
    #: = __add__`, and `Value.x = ...` after the class
    members: frozenset[str]
    #: attributes its methods set on self (self.data = ...), in the order they first appear
    attributes: tuple[str, ...]
    #: it inherits from something other than object, so members may come from elsewhere
    has_bases: bool

    def defines(self, member: str) -> bool | None:
        """Whether the class has `member`; None when a base class might supply it."""
        if member in self.members:
            return True
        return None if self.has_bases else False


@dataclass(frozen=True, slots=True)
class Definitions:
    """The top-level definitions of a submission, by name
    (the last one wins, as in a notebook run top to bottom)."""

    classes: dict[str, ClassFacts]
    functions: tuple[str, ...]
    #: module-level `Node = Value`: the name, and the name it is bound to
    aliases: dict[str, str]
    #: every name and attribute the code mentions (clone, detach, math...)
    identifiers: frozenset[str] = frozenset()
    #: the methods and functions that overwrite a grad with a computed value (grad_overwrites)
    grad_overwrites: frozenset[str] = frozenset()
    #: functions and methods whose body is a placeholder:
    #: pass, ..., raise NotImplementedError, return None
    unwritten: frozenset[str] = frozenset()
    #: methods of a class that never return a value (an operation whose result is None)
    returns_nothing: frozenset[str] = frozenset()
    #: each function defined inside another (a _backward closure),
    #: and the top-level methods and functions it is defined in
    enclosing: dict[str, frozenset[str]] = field(default_factory=dict)
    #: where each top-level function and method is: (cell label, first line, last line, name)
    spans: tuple[tuple[str, int, int, str], ...] = ()
    #: (class, method): a method its class's __init__ hides behind an instance attribute
    #: (grader.judge.diagnose.code_facts)
    shadowed: frozenset[tuple[str, str]] = frozenset()
    #: methods that walk a post-order (inputs-first)
    #: list of nodes forwards, calling each node's step
    forward_walks: frozenset[str] = frozenset()
    #: (class, method): a method of a class whose body is a placeholder,
    #: as the starter hands it out (pass, ..., return None, raise
    #: NotImplementedError), and that nothing after the class replaces
    unwritten_methods: frozenset[tuple[str, str]] = frozenset()
    #: functions and methods whose results are, at some positions, still the starter's
    #: None placeholders: the returned name at each such position, "" at the others
    placeholders: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: every attribute the code assigns to anywhere
    #: (`Node.__rsub__ = f` inside a function too), but on self
    patched: frozenset[str] = frozenset()

    @property
    def stepped(self) -> frozenset[str]:
        """The methods and functions that define a function
        inside them: an operation's own _backward step."""
        return frozenset().union(*self.enclosing.values())

    def outer(self, function: str, file: str = "", line: int = 0) -> frozenset[str]:
        """The top-level methods or functions `function` is,
        or is defined in; at a known place, the one there."""
        here = {
            name
            for label, first, last, name in self.spans
            if label == file and first <= line <= last
        }
        if len(here) == 1:
            return frozenset(here)
        return self.enclosing.get(function, frozenset({function}))

    def class_named(self, name: str) -> ClassFacts | None:
        return self.classes.get(self.aliases.get(name, name))

    def describe(self) -> str:
        """What the file defines, in words: "class
        `Value` (with .data, .grad), function `train`"."""
        parts = []
        for facts in self.classes.values():
            shown = ", ".join(
                f"`.{a}`" for a in [a for a in facts.attributes if not a.startswith("_")][:4]
            )
            parts.append(f"class `{facts.name}`" + (f" (with {shown})" if shown else ""))
        parts += [f"function `{name}`" for name in self.functions]
        return ", ".join(parts[:6]) + (" and more" if len(parts) > 6 else "")


def definitions(cells: Sequence[SourceCell]) -> Definitions:
    """Classes, functions and aliases defined at the top of any cell that parses."""
    classes: dict[str, ClassFacts] = {}
    functions: dict[str, None] = {}
    aliases: dict[str, str] = {}
    later: list[tuple[str, str]] = []  # Value.value = property(...), after the class
    identifiers: set[str] = set()
    patched: set[str] = set()
    labelled = _labelled(cells)
    trees = [tree for _, tree in labelled]
    for tree in trees:
        named, assigned = mentioned(tree)
        identifiers |= named
        patched |= assigned
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                classes[node.name] = _class_facts(node)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                functions[node.name] = None
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name) and isinstance(node.value, ast.Name):
                        aliases[target.id] = node.value.id
                    elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
                        later.append((target.value.id, target.attr))
    for owner, member in later:
        if owner in classes:
            facts = classes[owner]
            classes[owner] = ClassFacts(
                facts.name, facts.members | {member}, facts.attributes, facts.has_bases
            )
    unwritten, returns_nothing, enclosing = _bodies(trees)
    spans = tuple(
        (label, f.lineno, f.end_lineno or f.lineno, f.name)
        for label, tree in labelled
        for f, _ in _top_functions(tree)
    )
    placeholders = {
        name: positions for tree in trees for name, positions in placeholder_returns(tree).items()
    }
    methods = {m.name for tree in trees for m, is_method in _top_functions(tree) if is_method}
    # a method whose every result is still a placeholder returns nothing, as one that never returns
    returns_nothing |= {
        name for name, positions in placeholders.items() if name in methods and all(positions)
    }
    return Definitions(
        classes,
        tuple(functions),
        aliases,
        frozenset(identifiers),
        grad_overwrites(trees),
        unwritten,
        returns_nothing,
        enclosing,
        spans,
        frozenset().union(*(shadowed(tree) for tree in trees)),
        frozenset().union(*(forward_walks(tree) for tree in trees)),
        unwritten_methods=_unwritten_methods(trees),
        placeholders=placeholders,
        patched=frozenset(patched),
    )


def _top_functions(tree: ast.Module) -> list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, bool]]:
    """The module's functions and its classes' methods, each with whether it is a method."""
    found: list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, bool]] = [
        (n, False) for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    ]
    found += [
        (m, True)
        for c in tree.body
        if isinstance(c, ast.ClassDef)
        for m in c.body
        if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))
    ]
    return found


def _bodies(
    trees: Sequence[ast.Module],
) -> tuple[frozenset[str], frozenset[str], dict[str, frozenset[str]]]:
    """Placeholders, methods that return nothing, and
    where nested functions are defined (one walk each)."""
    unwritten: set[str] = set()
    nothing: set[str] = set()
    enclosing: dict[str, set[str]] = {}
    for tree in trees:
        for function, is_method in _top_functions(tree):
            if placeholder(function.body):
                unwritten.add(function.name)
            returns = False
            for node in ast.walk(function):
                if (
                    isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                    and node is not function
                ):
                    if not isinstance(node, ast.Lambda):
                        enclosing.setdefault(node.name, set()).add(function.name)
                        if placeholder(node.body):
                            unwritten.add(node.name)
                elif (
                    isinstance(node, ast.Return)
                    and node.value is not None
                    and not (isinstance(node.value, ast.Constant) and node.value.value is None)
                ):
                    returns = True
            if is_method and not returns and function.name != "__init__":
                nothing.add(function.name)
    return frozenset(unwritten), frozenset(nothing), {k: frozenset(v) for k, v in enclosing.items()}


def _unwritten_methods(trees: Sequence[ast.Module]) -> frozenset[tuple[str, str]]:
    """(class, method) for each method a class defines as a placeholder; the
    last definition wins, as a notebook run top to bottom would have it (a class
    defined again starts afresh, `Value.backward = f` after it replaces one)."""
    written: dict[tuple[str, str], bool] = {}
    aliases: dict[str, str] = {}  # Node = Value: Node.backward = f replaces Value's
    for tree in trees:
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                written = {key: value for key, value in written.items() if key[0] != node.name}
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        written[node.name, item.name] = not placeholder(item.body)
                    elif isinstance(item, ast.Assign):
                        written.update(
                            {
                                (node.name, t.id): True
                                for t in item.targets
                                if isinstance(t, ast.Name)
                            }
                        )
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name) and isinstance(node.value, ast.Name):
                        aliases[target.id] = aliases.get(node.value.id, node.value.id)
                    elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
                        written[aliases.get(target.value.id, target.value.id), target.attr] = True
    return frozenset(key for key, done in written.items() if not done)


def placeholder(body: Sequence[ast.stmt]) -> bool:
    """A body that is only a docstring, pass, ...,
    `raise NotImplementedError(...)` or `return None`."""
    statements = [
        s for s in body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
    ]
    return not statements or (len(statements) == 1 and _placeholder_statement(statements[0]))


def _placeholder_statement(statement: ast.stmt) -> bool:
    if isinstance(statement, ast.Pass):
        return True
    if isinstance(statement, ast.Return):
        return statement.value is None or (
            isinstance(statement.value, ast.Constant) and statement.value.value is None
        )
    if isinstance(statement, ast.Raise) and statement.exc is not None:
        raised = statement.exc.func if isinstance(statement.exc, ast.Call) else statement.exc
        return isinstance(raised, ast.Name) and raised.id == "NotImplementedError"
    return False


def _parsed(cells: Sequence[SourceCell]) -> list[ast.Module]:
    """Each cell's syntax tree; a cell that does not parse is left out (the run reports it)."""
    return [tree for _, tree in _labelled(cells)]


def _labelled(cells: Sequence[SourceCell]) -> list[tuple[str, ast.Module]]:
    """(label, syntax tree) of each cell the parser builds a
    tree of (grader.run.read.syntax: any failure is no tree)."""
    return [(cell.label, tree) for cell in cells if (tree := syntax_tree(cell.source)) is not None]


def grad_overwrites(trees: Sequence[ast.Module]) -> frozenset[str]:
    """The methods and functions that overwrite a grad with a computed value (x.grad = out.grad
    * y, not self.grad = 1.0 or 0.0): where an engine's accumulation happens, or fails to."""
    found: set[str] = set()
    for tree in trees:
        functions = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        functions += [
            m
            for c in tree.body
            if isinstance(c, ast.ClassDef)
            for m in c.body
            if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))
        ]
        for function in functions:
            if function.name == "__init__":
                continue
            for node in ast.walk(function):
                if (
                    isinstance(node, ast.Assign)
                    and not _constant(node.value)
                    and any(isinstance(t, ast.Attribute) and t.attr == "grad" for t in node.targets)
                ):
                    found.add(function.name)
    return frozenset(found)


def _constant(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) or (
        isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant)
    )


def mentioned(tree: ast.AST) -> tuple[set[str], set[str]]:
    """The names and attribute names a syntax tree uses; and
    the attributes it assigns to, but on self (one walk)."""
    names: set[str] = set()
    assigned: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
            if isinstance(node.ctx, ast.Store) and not (
                isinstance(node.value, ast.Name) and node.value.id == "self"
            ):
                assigned.add(node.attr)
    return names, assigned


def _class_facts(node: ast.ClassDef) -> ClassFacts:
    members: set[str] = set()
    attributes: dict[str, None] = {}
    # a def under an if, a try or a loop of the class body is a member all the same
    for item in statements(node.body, into_definitions=False):
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            members.add(item.name)
            for inner in ast.walk(item):
                if isinstance(inner, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                    targets = inner.targets if isinstance(inner, ast.Assign) else [inner.target]
                    for target in targets:
                        for part in ast.walk(target):
                            if (
                                isinstance(part, ast.Attribute)
                                and isinstance(part.value, ast.Name)
                                and part.value.id == "self"
                                and not part.attr.startswith("__")
                            ):
                                attributes.setdefault(part.attr, None)
        elif isinstance(
            item, ast.Assign
        ):  # __radd__ = __add__, and __radd__, __rmul__ = __add__, __mul__
            members |= {n.id for t in item.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            members.add(item.target.id)
        elif isinstance(item, (ast.Import, ast.ImportFrom)):
            members |= {(alias.asname or alias.name).split(".")[0] for alias in item.names}
    bases = [b for b in node.bases if not (isinstance(b, ast.Name) and b.id == "object")]
    # a base, a metaclass or a class decorator may supply members the body does not spell out
    return ClassFacts(
        node.name,
        frozenset(members),
        tuple(attributes),
        bool(bases or node.keywords or node.decorator_list),
    )


def probe_reads(expressions: Sequence[str]) -> tuple[str, ...]:
    """The attributes observation expressions read
    (out.value, x.grad), in order: what a class must have."""
    found: dict[str, None] = {}
    for text in expressions:
        try:
            tree = ast.parse(text, mode="eval")
        except SyntaxError:
            continue
        called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and id(node) not in called
                and isinstance(node.value, ast.Name)
            ):
                found.setdefault(node.attr, None)
    return tuple(found)
