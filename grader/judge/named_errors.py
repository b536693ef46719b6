"""Mistakes an engine's error message names by itself, once the submission's syntax tree confirms them.

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
OPERATORS = {"+": "add", "-": "sub", "*": "mul", "/": "truediv", "**": "pow", "//": "floordiv", "%": "mod",
             "@": "matmul"}
#: the lessons' engine methods an AttributeError can be about (attributes such as .value are the contract's)
ENGINE_METHODS = frozenset({"sigmoid", "relu", "tanh", "exp", "log", "backward"})
#: and a tensor engine's (family C): its reductions and reshapes are methods too
TENSOR_METHODS = frozenset({"sum", "mean", "max", "reshape", "transpose", "broadcast_to"})

_OPERANDS = re.compile(r"unsupported operand type\(s\) for (?P<op>[^:]+?)(?: or pow\(\))?: "
                       r"'(?P<left>[\w.]+)' and '(?P<right>[\w.]+)'")
_UNARY = re.compile(r"bad operand type for unary (?P<op>[-+~]): '(?P<type>[\w.]+)'")
_NO_ATTRIBUTE = re.compile(r"'(?P<type>[\w.]+)' object has no attribute '(?P<attr>\w+)'")
_SIGNATURE = re.compile(r"^(?P<owner>\w+)\.(?P<method>\w+)\(\) (missing \d+ required positional argument"
                        r"|takes \d+ positional arguments? but \d+ (was|were) given)")
_UNDEFINED = re.compile(r"name '(?P<name>\w+)' is not defined")


def named_by_error(error: ErrorInfo, defined: Definitions) -> Diagnosis | None:
    """The mistake this error names, where what the submission defines confirms it; else None."""
    for read in (_operands, _unary, _attribute, _signature, _undefined):
        found = read(error, defined)
        if found is not None:
            return found
    return None


def _operands(error: ErrorInfo, defined: Definitions) -> Diagnosis | None:
    match = _OPERANDS.search(error.message) if error.type_name == "TypeError" else None
    if match is None or match["op"] not in OPERATORS:
        return None
    op, left, right = match["op"], match["left"], match["right"]
    name = OPERATORS[op]
    if left in NUMBERS and (owner := defined.class_named(right)) is not None:
        method = f"__r{name}__"
        if owner.defines(method) is False:
            return _missing("missing-reflected-operator", method, error,
                            f"k {op} x, with a plain number on the left, calls {owner.name}.{method}, which your class "
                            f"does not define: define {method} (for {op}, it computes k {op} x, in that order).")
        return None
    owner = defined.class_named(left)
    if owner is None or not (right in NUMBERS or right == left):
        return None
    method = f"__{name}__"
    if owner.defines(method) is False:
        return _missing("missing-method", method, error,
                        f"Your class {owner.name} has no {method}, so x {op} y cannot be computed: define it.")
    return None


def _unary(error: ErrorInfo, defined: Definitions) -> Diagnosis | None:
    match = _UNARY.search(error.message) if error.type_name == "TypeError" else None
    owner = None if match is None else defined.class_named(match["type"])
    if match is None or owner is None or match["op"] != "-" or owner.defines("__neg__") is not False:
        return None
    return _missing("missing-method", "__neg__", error, f"Your class {owner.name} has no __neg__, so -x cannot be "
                                                        "computed: define it.")


def _attribute(error: ErrorInfo, defined: Definitions) -> Diagnosis | None:
    match = _NO_ATTRIBUTE.search(error.message) if error.type_name == "AttributeError" else None
    if match is None:
        return None
    kind, attr = match["type"], match["attr"]
    if kind in NUMBERS:
        # a plain number reached code that reads a node's attribute: an operation did not wrap it
        holders = [c.name for c in defined.classes.values() if attr in c.attributes]
        if holders:
            return Diagnosis(kind="pattern", mistake="constant-not-wrapped", hint=(
                f"A plain number reached code that reads .{attr}, which only your {holders[0]} objects have: an "
                f"operation must accept a number on either side by wrapping it (other = other if "
                f"isinstance(other, {holders[0]}) else {holders[0]}(other))."),
                evidence=f"the code raised AttributeError: {error.message}")
        return None
    owner = defined.class_named(kind)
    if owner is None or attr not in ENGINE_METHODS | TENSOR_METHODS or owner.defines(attr) is not False:
        return None
    return _missing("missing-method", attr, error, f"Your class {owner.name} has no {attr}(): define it.")


def _signature(error: ErrorInfo, defined: Definitions) -> Diagnosis | None:
    match = _SIGNATURE.search(error.message) if error.type_name == "TypeError" else None
    owner = None if match is None else defined.class_named(match["owner"])
    if match is None or owner is None or not owner.defines(match["method"]):
        return None
    method = match["method"]
    return Diagnosis(kind="pattern", mistake="wrong-signature", hint=(
        f"{owner.name}.{method} is defined with other parameters than Python or your backward() calls it with "
        f"({error.message}): for an operator, Python passes self (and the other operand for a binary one), "
        "nothing more."), evidence=f"the code raised TypeError: {error.message}")


def _undefined(error: ErrorInfo, defined: Definitions) -> Diagnosis | None:
    match = _UNDEFINED.search(error.message) if error.type_name == "NameError" else None
    if match is None or error.where is None:  # only a name the student's own code uses
        return None
    name = match["name"]
    fix = f"import it (from math import {name}), or write math.{name}" if hasattr(math, name) else \
        "define it, or import it, before it is used"
    return Diagnosis(kind="pattern", mistake="undefined-name", hint=(
        f"{name} is not defined where your code uses it ({error.where.describe()}): {fix}."),
        evidence=f"the code raised NameError: {error.message}")


def _missing(mistake: str, method: str, error: ErrorInfo, hint: str) -> Diagnosis:
    return Diagnosis(kind="pattern", mistake=mistake, hint=hint,
                     rule=RuleFault(method=method, operand="", how="missing"),
                     evidence=f"the code raised {error.type_name}: {error.message}; the class defines no {method}")
