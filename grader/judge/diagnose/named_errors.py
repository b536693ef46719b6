"""Mistakes an engine's error message names by itself,
once the submission's syntax tree confirms them.

"unsupported operand type(s) for -: 'float' and 'Value'" means a missing `__rsub__` only when the
left operand is a plain number, the right one is the student's class, and that class really has no
`__rsub__`; with 'Value' on both sides it means `__sub__` itself is missing. Each hint here checks
the operands and the operator it is about against `grader.judge.names`, and names nothing where the
syntax tree cannot settle it (a class with bases, a name made at run time).
"""

from __future__ import annotations

import math
import re

from grader.core.values import ErrorInfo
from grader.judge.names import Definitions
from grader.judge.report import Diagnosis, RuleFault

NUMBERS = frozenset({"int", "float"})
#: an operator as Python's messages write it, and the method it calls
OPERATORS = {
    "+": "add",
    "-": "sub",
    "*": "mul",
    "/": "truediv",
    "**": "pow",
    "//": "floordiv",
    "%": "mod",
    "@": "matmul",
}
#: the lessons' engine methods an AttributeError can be
#: about (attributes such as .value are the contract's)
ENGINE_METHODS = frozenset({"sigmoid", "relu", "tanh", "exp", "log", "backward"})
#: and a tensor engine's (family C): its reductions and reshapes are methods too
TENSOR_METHODS = frozenset({"sum", "mean", "max", "reshape", "transpose", "broadcast_to"})

_OPERANDS = re.compile(
    r"unsupported operand type\(s\) for (?P<op>[^:]+?)(?: or pow\(\))?: "
    r"'(?P<left>[\w.]+)' and '(?P<right>[\w.]+)'"
)
_UNARY = re.compile(r"bad operand type for unary (?P<op>[-+~]): '(?P<type>[\w.]+)'")
_NO_ATTRIBUTE = re.compile(r"'(?P<type>[\w.]+)' object has no attribute '(?P<attr>\w+)'")
_SIGNATURE = re.compile(
    r"^(?P<owner>\w+)\.(?P<method>\w+)\(\) (missing \d+ required positional argument"
    r"|takes \d+ positional arguments? but \d+ (was|were) given)"
)
_UNDEFINED = re.compile(r"name '(?P<name>\w+)' is not defined")


#: the operations of an engine's class: what a probe calls on it, other than backward()
OPERATIONS = frozenset(
    {f"__{name}__" for name in OPERATORS.values()}
    | {f"__r{name}__" for name in OPERATORS.values()}
    | {"__neg__"}
    | (ENGINE_METHODS - {"backward"})
)
#: the ids of the patterns an error states by itself:
#: they are the facts of their own check, never guessed
STATED = frozenset(
    {
        "missing-method",
        "missing-reflected-operator",
        "constant-not-wrapped",
        "number-as-child",
        "exponent-not-a-node",
        "wrong-signature",
        "undefined-name",
        "not-written-yet",
        "other-attribute-names",
        "unset-attribute",
        "radd-recursion",
        "rmul-recursion",
        "unstable-forward",
    }
)
#: what an error states only of code that is right wherever it gives
#: values (an overflow in a wrong formula is the formula's fault)
RIGHT_ELSEWHERE = frozenset({"unstable-forward"})
#: bounded functions: exp overflowing inside one means
#: a formula that is not stable, not a value too large
_BOUNDED = frozenset({"sigmoid", "tanh"})


def named_by_error(
    error: ErrorInfo, defined: Definitions, uses: frozenset[str] | None = None
) -> Diagnosis | None:
    """The mistake this error names, where what the submission defines confirms it; else None.

    `uses`: the operations the check's code calls, where known: an operation
    that returns nothing explains a None only where the check calls it.
    """
    found = _not_written(error, defined) or _returns_nothing(error, defined, uses)
    for read in (_operands, _unary, _attribute, _signature, _undefined, _recursion, _overflow):
        found = found or read(error, defined)
    return found


def _not_written(error: ErrorInfo, defined: Definitions) -> Diagnosis | None:
    """NotImplementedError from a method of the submission:
    the starter's placeholder, not written yet."""
    where = error.where
    if (
        error.type_name != "NotImplementedError"
        or where is None
        or where.function in ("", "<module>")
    ):
        return None
    outer = sorted(defined.outer(where.function, where.file, where.line))
    if outer == [where.function]:
        if where.function not in defined.unwritten and not any(
            c.defines(where.function) for c in defined.classes.values()
        ):
            return None
        method = where.function
        hint = (
            f"`{method}` is not written yet: it still raises NotImplementedError, "
            "as the starter hands it out. Write it, then grade again."
        )
    elif where.function not in defined.enclosing:
        # a name the file does not define inside a method: nothing the syntax tree confirms
        return None
    elif len(outer) == 1 and outer[0] in OPERATIONS:
        method, hint = (
            outer[0],
            (
                f"`{outer[0]}` has no backward yet: its `{where.function}` still raises "
                "NotImplementedError. Write it, then grade again."
            ),
        )
    elif len(outer) == 1:
        method, hint = (
            outer[0],
            (
                f"`{outer[0]}` is not finished yet: `{where.function}`, inside it, still raises "
                "NotImplementedError. Write it, then grade again."
            ),
        )
    else:
        return None
    return Diagnosis(
        kind="pattern",
        mistake="not-written-yet",
        hint=hint,
        rule=RuleFault(method=method, operand="", how="missing"),
        evidence=f"the code raised NotImplementedError ({where.describe()})",
    )


def _returns_nothing(
    error: ErrorInfo, defined: Definitions, uses: frozenset[str] | None
) -> Diagnosis | None:
    """A None that an operation returned: one that never returns a value is not written yet."""
    if "'NoneType'" not in error.message or error.type_name not in ("AttributeError", "TypeError"):
        return None
    empty = sorted(m for m in defined.returns_nothing & OPERATIONS if uses is None or m in uses)
    if not empty or (uses is None and len(empty) > 1):
        return None
    shown = ", ".join(f"`{m}`" for m in empty)
    return Diagnosis(
        kind="pattern",
        mistake="not-written-yet",
        hint=(
            f"{shown} {'returns' if len(empty) == 1 else 'return'} nothing (None) "
            f"yet, so what uses {'its' if len(empty) == 1 else 'their'} result "
            "fails: an operation returns the new node it makes (return out)."
        ),
        rule=RuleFault(method=empty[0], operand="", how="missing") if len(empty) == 1 else None,
        evidence=f"the code raised {error.type_name}: {error.message}; "
        f"{shown} never return a value",
    )


def _operands(error: ErrorInfo, defined: Definitions) -> Diagnosis | None:
    match = _OPERANDS.search(error.message) if error.type_name == "TypeError" else None
    if match is None or match["op"] not in OPERATORS:
        return None
    op, left, right = match["op"], match["left"], match["right"]
    name = OPERATORS[op]
    if left in NUMBERS and (owner := defined.class_named(right)) is not None:
        method = f"__r{name}__"
        if owner.defines(method) is False:
            return _missing(
                "missing-reflected-operator",
                method,
                error,
                f"k {op} x, with a plain number on the left, calls "
                f"{owner.name}.{method}, which your class does not define: define "
                f"{method} (for {op}, it computes k {op} x, in that order).",
            )
        return None
    owner = defined.class_named(left)
    if owner is None or not (right in NUMBERS or right == left):
        return None
    method = f"__{name}__"
    if owner.defines(method) is False:
        return _missing(
            "missing-method",
            method,
            error,
            f"Your class {owner.name} has no {method}, so x {op} y cannot be computed: define it.",
        )
    return None


def _unary(error: ErrorInfo, defined: Definitions) -> Diagnosis | None:
    match = _UNARY.search(error.message) if error.type_name == "TypeError" else None
    owner = None if match is None else defined.class_named(match["type"])
    if (
        match is None
        or owner is None
        or match["op"] != "-"
        or owner.defines("__neg__") is not False
    ):
        return None
    return _missing(
        "missing-method",
        "__neg__",
        error,
        f"Your class {owner.name} has no __neg__, so -x cannot be computed: define it.",
    )


def _attribute(error: ErrorInfo, defined: Definitions) -> Diagnosis | None:
    match = _NO_ATTRIBUTE.search(error.message) if error.type_name == "AttributeError" else None
    if match is None:
        return None
    kind, attr = match["type"], match["attr"]
    if kind in NUMBERS:
        return _number_read(error, defined, attr)
    owner = defined.class_named(kind)
    if owner is None or owner.defines(attr) is not False or "__getattr__" in owner.members:
        return None
    if attr in ENGINE_METHODS | TENSOR_METHODS:
        return _missing(
            "missing-method", attr, error, f"Your class {owner.name} has no {attr}(): define it."
        )
    if attr in owner.attributes or attr.startswith("_"):
        return None  # set somewhere, not yet where it was read: nothing the syntax tree settles
    has = ", ".join(f".{a}" for a in owner.attributes if not a.startswith("_"))
    if not has:
        return None
    if error.where is None:  # the exercise's own code read it: the contract's name
        return Diagnosis(
            kind="pattern",
            mistake="other-attribute-names",
            hint=(
                f"Your class {owner.name} has no .{attr}, which this exercise reads: it "
                f"keeps its numbers in {has}. Use the exercise's names, or add a property "
                f"to the class ({attr} = property(lambda self: self.{owner.attributes[0]}) "
                f"if .{owner.attributes[0]} holds what .{attr} means)."
            ),
            evidence=f"the code raised AttributeError: {error.message}; the class sets {has}",
        )
    return Diagnosis(
        kind="pattern",
        mistake="unset-attribute",
        hint=(
            f"Your code reads .{attr} of a {owner.name} ({error.where.describe()}), "
            f"which {owner.name} never sets: it sets {has}. A misspelt name?"
        ),
        evidence=f"the code raised AttributeError: {error.message}",
    )


def _number_read(error: ErrorInfo, defined: Definitions, attr: str) -> Diagnosis | None:
    """A plain number where a node was read: unwrapped by an operation, an exponent used
    as a node, or a number put among a node's children, which backward() then walks."""
    holders = [c.name for c in defined.classes.values() if attr in c.attributes]
    where = error.where
    if not holders or where is None:
        return None
    outer = defined.outer(where.function, where.file, where.line)
    evidence = f"the code raised AttributeError: {error.message} ({where.describe()})"
    if outer == {"__pow__"}:
        return Diagnosis(
            kind="pattern",
            mistake="exponent-not-a-node",
            hint=(
                f"In x ** n the exponent n is a plain number, not a {holders[0]}: it has no "
                f".{attr}. Use it as the number it is, and leave it out of the node's children."
            ),
            evidence=evidence,
        )
    if outer and outer <= OPERATIONS:
        return Diagnosis(
            kind="pattern",
            mistake="constant-not-wrapped",
            hint=(
                f"A plain number reached code that reads .{attr}, which only your {holders[0]} "
                "objects have: an operation must accept a number on either side by wrapping it "
                f"(other = other if isinstance(other, {holders[0]}) else {holders[0]}(other))."
            ),
            evidence=evidence,
        )
    if "backward" in outer:
        return Diagnosis(
            kind="pattern",
            mistake="number-as-child",
            hint=(
                "backward() met a plain number among a node's children and "
                f"read its .{attr}: an operation lists a number (an exponent, "
                f"a constant) as a child. Keep only {holders[0]} objects among "
                "the children (for x ** n, the children are (self,) alone)."
            ),
            evidence=evidence,
        )
    return None


def _signature(error: ErrorInfo, defined: Definitions) -> Diagnosis | None:
    match = _SIGNATURE.search(error.message) if error.type_name == "TypeError" else None
    owner = None if match is None else defined.class_named(match["owner"])
    if match is None or owner is None or not owner.defines(match["method"]):
        return None
    method = match["method"]
    return Diagnosis(
        kind="pattern",
        mistake="wrong-signature",
        hint=(
            f"{owner.name}.{method} is defined with other parameters than Python or "
            f"your backward() calls it with ({error.message}): for an operator, Python "
            "passes self (and the other operand for a binary one), nothing more."
        ),
        evidence=f"the code raised TypeError: {error.message}",
    )


def _undefined(error: ErrorInfo, defined: Definitions) -> Diagnosis | None:
    match = _UNDEFINED.search(error.message) if error.type_name == "NameError" else None
    if match is None or error.where is None:  # only a name the student's own code uses
        return None
    name = match["name"]
    fix = (
        f"import it (from math import {name}), or write math.{name}"
        if hasattr(math, name)
        else "define it, or import it, before it is used"
    )
    return Diagnosis(
        kind="pattern",
        mistake="undefined-name",
        hint=(f"{name} is not defined where your code uses it ({error.where.describe()}): {fix}."),
        evidence=f"the code raised NameError: {error.message}",
    )


def _missing(mistake: str, method: str, error: ErrorInfo, hint: str) -> Diagnosis:
    return Diagnosis(
        kind="pattern",
        mistake=mistake,
        hint=hint,
        rule=RuleFault(method=method, operand="", how="missing"),
        evidence=f"the code raised {error.type_name}: "
        f"{error.message}; the class defines no {method}",
    )


def _recursion(error: ErrorInfo, defined: Definitions) -> Diagnosis | None:
    """A reflected + or * that calls itself: `other +
    self` with a number on the left calls __radd__ again."""
    where = error.where
    if (
        error.type_name != "RecursionError"
        or where is None
        or where.function not in ("__radd__", "__rmul__")
    ):
        return None
    if not any(c.defines(where.function) for c in defined.classes.values()):
        return None
    op = "+" if where.function == "__radd__" else "*"
    return Diagnosis(
        kind="pattern",
        mistake=f"{where.function.strip('_')}-recursion",
        hint=(
            f"{where.function} calls itself without end: with a plain number on the left, other "
            f"{op} self calls {where.function} again (RecursionError). Return self {op} other."
        ),
        rule=None,
        evidence=f"the code raised RecursionError ({where.describe()})",
    )


def _overflow(error: ErrorInfo, defined: Definitions) -> Diagnosis | None:
    """math.exp overflowing inside sigmoid or tanh, whose
    values are bounded: a formula that is not stable."""
    where = error.where
    if error.type_name != "OverflowError" or where is None:
        return None
    bounded = sorted(defined.outer(where.function, where.file, where.line) & _BOUNDED)
    if not bounded:
        return None
    method = bounded[0]
    return Diagnosis(
        kind="pattern",
        mistake="unstable-forward",
        hint=(
            "math.exp overflows for a large argument (math.exp(800) raises OverflowError), and "
            f"{method} is written with one formula that gives exp a large argument at one end. "
            "Use two branches, so that exp only ever gets a negative argument (for sigmoid: 1 "
            "/ (1 + math.exp(-x)) for x >= 0, e / (1 + e) with e = math.exp(x) for x < 0)."
        ),
        evidence=f"the code raised OverflowError ({where.describe()})",
    )
