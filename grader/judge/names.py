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
from dataclasses import dataclass
from functools import cached_property

from grader.judge.diagnose.code_facts import (
    forward_walks,
    placeholder_returns,
    shadowed,
    top_functions,
)
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


class Definitions:
    """The top-level definitions of a submission, by name (the last one wins, as in a notebook run
    top to bottom), and the facts its syntax tree settles, each read the first time a diagnosis
    asks for it: the file is parsed once, and a fact no pass asks for is never computed."""

    def __init__(
        self,
        classes: dict[str, ClassFacts],
        functions: tuple[str, ...],
        aliases: dict[str, str],
        trees: Sequence[tuple[str, ast.Module]] = (),
    ) -> None:
        self.classes = classes
        self.functions = functions
        #: module-level `Node = Value`: the name, and the name it is bound to
        self.aliases = aliases
        #: (cell label, syntax tree) of each cell that parses
        self._labelled = tuple(trees)
        self._trees = tuple(tree for _, tree in self._labelled)

    @cached_property
    def _mentions(self) -> tuple[frozenset[str], frozenset[str]]:
        names: set[str] = set()
        assigned: set[str] = set()
        for tree in self._trees:
            named, stored = mentioned(tree)
            names |= named
            assigned |= stored
        return frozenset(names), frozenset(assigned)

    @cached_property
    def identifiers(self) -> frozenset[str]:
        """Every name and attribute the code mentions (clone, detach, math...): what a mutant's
        distinctive code is looked for in (grader.judge.diagnose.matching), and what can add
        a member the syntax tree does not show (grader.judge.diagnose.unreached)."""
        return self._mentions[0]

    @cached_property
    def patched(self) -> frozenset[str]:
        """Every attribute the code assigns to anywhere (`Node.__rsub__ = f` inside a function
        too), but on self: a method added where the syntax tree cannot tell."""
        return self._mentions[1]

    @cached_property
    def grad_overwrites(self) -> frozenset[str]:
        """The methods and functions that overwrite a grad with a computed value: where an
        engine's accumulation happens, or fails to (grader.judge.diagnose.faults)."""
        return grad_overwrites(self._trees)

    @cached_property
    def _bodies(self) -> tuple[frozenset[str], frozenset[str], dict[str, frozenset[str]]]:
        return _bodies(self._trees)

    @cached_property
    def unwritten(self) -> frozenset[str]:
        """Functions and methods whose body is a placeholder: pass, ..., raise
        NotImplementedError, return None (grader.judge.diagnose.named_errors)."""
        return self._bodies[0]

    @cached_property
    def returns_nothing(self) -> frozenset[str]:
        """Methods of a class that never return a value (an operation whose result is None); a
        method whose every result is still a placeholder returns nothing too."""
        methods = set()
        for tree in self._trees:
            methods |= {m.name for m, is_method in top_functions(tree) if is_method}
        empty = {
            name
            for name, positions in self.placeholders.items()
            if name in methods and all(positions)
        }
        return self._bodies[1] | empty

    @cached_property
    def enclosing(self) -> dict[str, frozenset[str]]:
        """Each function defined inside another (a _backward closure), and the top-level methods
        and functions it is defined in."""
        return self._bodies[2]

    @cached_property
    def spans(self) -> tuple[tuple[str, int, int, str], ...]:
        """Where each top-level function and method is: (cell label, first line, last line,
        name)."""
        found = []
        for label, tree in self._labelled:
            for function, _ in top_functions(tree):
                found.append(
                    (label, function.lineno, function.end_lineno or function.lineno, function.name)
                )
        return tuple(found)

    @cached_property
    def shadowed(self) -> frozenset[tuple[str, str]]:
        """(class, method): a method its class's __init__ hides behind an instance attribute
        (grader.judge.diagnose.code_facts)."""
        return frozenset().union(*(shadowed(tree) for tree in self._trees))

    @cached_property
    def forward_walks(self) -> frozenset[str]:
        """Methods that walk a post-order (inputs-first) list of nodes forwards, calling each
        node's step (grader.judge.diagnose.code_facts)."""
        return frozenset().union(*(forward_walks(tree) for tree in self._trees))

    @cached_property
    def unwritten_methods(self) -> frozenset[tuple[str, str]]:
        """(class, method): a method of a class whose body is a placeholder, as the starter hands
        it out (pass, ..., return None, raise NotImplementedError), and that nothing after the
        class replaces."""
        return _unwritten_methods(self._trees)

    @cached_property
    def placeholders(self) -> dict[str, tuple[str, ...]]:
        """Functions and methods whose results are, at some positions, still the starter's None
        placeholders: the returned name at each such position, "" at the others."""
        found: dict[str, tuple[str, ...]] = {}
        for tree in self._trees:
            found.update(placeholder_returns(tree))
        return found

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
    """Classes, functions and aliases defined at the top of any cell that parses; the rest of
    the syntax tree's facts when asked."""
    classes: dict[str, ClassFacts] = {}
    functions: dict[str, None] = {}
    aliases: dict[str, str] = {}
    later: list[tuple[str, str]] = []  # Value.value = property(...), after the class
    labelled = _labelled(cells)
    for _, tree in labelled:
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
    return Definitions(classes, tuple(functions), aliases, labelled)


def _bodies(
    trees: Sequence[ast.Module],
) -> tuple[frozenset[str], frozenset[str], dict[str, frozenset[str]]]:
    """Placeholders, methods that return nothing, and
    where nested functions are defined (one walk each)."""
    unwritten: set[str] = set()
    nothing: set[str] = set()
    enclosing: dict[str, set[str]] = {}
    for tree in trees:
        for function, is_method in top_functions(tree):
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
        for function, _ in top_functions(tree):
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
            for target in item.targets:
                members |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
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
