"""Tensor mistakes an error states once the syntax tree
places it: a check that raised is named from what it raised.

A check without values has nothing to compare with a mistake's
(grader.judge.diagnose.known_mistakes), but some errors say what is wrong
by themselves, where the syntax tree confirms where they come from:

- numpy cannot broadcast a gradient of shape (2, 4) to (2, 3, 4) inside a
  reduction's backward, on a check that reduces without keepdims: (2, 4) is (2,
  3, 4) without axis 1, the reduced axis never put back (sum-grad-not-expanded);
- `np.broadcast_to` is given more axes than the input has inside a reduction's backward,
  on a check that reduces with keepdims=True, while a reduction without keepdims is
  right: the axes keepdims kept were put back again (keepdims-expanded-again);
- a step raises inside an operation's backward in a file whose backward() calls each node's step
  over its post-order list without reversing it (grader.judge.diagnose.code_facts): every step
  runs before the tensors that use its output have added to its gradient (order-not-reversed).

The ids are the exercises' own for these mistakes, one name for student and instructor. The shapes
go in the evidence only, which is withheld with the check's inputs (the message is the submission's
to choose).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence

from grader.core.exercise import Exercise
from grader.core.values import ErrorInfo
from grader.judge.names import Definitions
from grader.judge.report import Diagnosis, RuleFault

#: the reductions whose backward spreads a gradient back over the axes they removed
REDUCTIONS = frozenset({"sum", "mean", "max", "min", "amax", "amin", "prod", "var", "std"})
_REMAPPED = re.compile(
    r"could not be broadcast together with remapped shapes \[original->remapped\]: "
    r"\((?P<small>[\d,\s]*)\)\s+and requested shape \((?P<big>[\d,\s]*)\)"
)
_SHAPES = re.compile(
    r"could not be broadcast together with shapes \((?P<a>[\d,\s]*)\) \((?P<b>[\d,\s]*)\)"
)
_TOO_MANY_AXES = "input operand has more dimensions than allowed by the axis remapping"

HINTS = {
    "sum-grad-not-expanded": "Without keepdims the reduced axes are gone from out.grad "
    "(x.sum(axis=1) of a (2, 3, 4) tensor is (2, 4)): put them back as size 1 "
    "(np.expand_dims(g, axis)) before broadcasting the gradient to the input's shape.",
    "keepdims-expanded-again": "With keepdims=True the reduced axes are still in out.grad, as size "
    "1: put them back only when keepdims is False, or the gradient gets an axis too many and "
    "no longer broadcasts to the input's shape.",
    "order-not-reversed": "backward() builds its list depth-first, each tensor after the tensors "
    "it was made from, so the output comes last; walk it reversed (outputs first), or each "
    "_backward runs before the tensors that use its output have added to its gradient.",
}


def stated(
    exercise: Exercise,
    error: ErrorInfo,
    code: str,
    defined: Definitions | None,
    passing: Sequence[str],
) -> Diagnosis | None:
    """The mistake `error`, raised by the check whose probe
    runs `code`, states; None where nothing confirms one.

    `passing`: the code of the checks the submission passes.
    """
    where = error.where
    if defined is None or where is None or where.function in ("", "<module>"):
        return None
    outer = defined.outer(where.function, where.file, where.line)
    # a function defined inside an operation (its _backward), not a helper inside backward() itself
    in_step = (
        where.function in defined.enclosing
        and len(outer) == 1
        and exercise.contract.backward not in outer
    )
    if (
        in_step
        and exercise.contract.backward in defined.forward_walks
        and f".{exercise.contract.backward}(" in code
    ):
        return _named(
            "order-not-reversed",
            f"the code raised {error.type_name} in a backward step "
            f"({where.describe()}), and backward() calls each step over its "
            "depth-first list in its own order, inputs first",
            RuleFault(method=exercise.contract.backward, operand="", how="traversal-order"),
        )
    reduction = sorted(outer & REDUCTIONS)
    if error.type_name != "ValueError" or not reduction:
        return None
    return _in_reduction(error, reduction[0], code, passing)


def _in_reduction(
    error: ErrorInfo, reduction: str, code: str, passing: Sequence[str]
) -> Diagnosis | None:
    """A ValueError raised in `reduction`'s backward: a gradient not expanded back over the
    reduced axes, or expanded again where keepdims kept them."""
    assert error.where is not None
    where = error.where
    calls = _reductions(code)
    shapes = _shapes(error.message)
    if shapes is not None and any(not keep for keep in calls):
        small, big = shapes
        removed = _removed_axes(small, big)
        if removed is not None:
            return _named(
                "sum-grad-not-expanded",
                f"the code raised ValueError in {reduction}'s backward "
                f"({where.describe()}): a gradient of shape {shape_text(small)} "
                f"broadcast to {shape_text(big)}, which is {shape_text(big)} "
                f"without {axes_text(removed)}",
                _rule(reduction),
            )
    if _TOO_MANY_AXES in error.message and calls and all(calls) and _unkept(passing):
        return _named(
            "keepdims-expanded-again",
            f"the code raised ValueError in {reduction}'s backward "
            f"({where.describe()}): {_TOO_MANY_AXES}, on a reduction with "
            "keepdims=True, where one without keepdims is right",
            _rule(reduction),
        )
    return None


def _unkept(passing: Sequence[str]) -> bool:
    """Whether a check the submission passes reduces along an axis without keepdims."""
    for code in passing:
        if not all(_reductions(code, axis=True)):
            return True
    return False


def _named(mistake: str, evidence: str, rule: RuleFault) -> Diagnosis:
    return Diagnosis(
        kind="pattern", mistake=mistake, hint=HINTS[mistake], evidence=evidence, rule=rule
    )


def _rule(method: str) -> RuleFault:
    return RuleFault(method=method, operand="self", how="wrong-local")


def _reductions(code: str, axis: bool = False) -> list[bool]:
    """Each reduction the probe's code calls (x.sum(...), np.mean(x,
    ...)): whether with keepdims=True. With `axis`, only those given
    an axis (a reduction to one number puts no axis back)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return []
    found = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in REDUCTIONS
        ):
            words = {k.arg: k.value for k in node.keywords if k.arg}
            keep = words.get("keepdims")
            given = "axis" in words or len(node.args) > (1 if _module_call(node) else 0)
            if not axis or given:
                found.append(isinstance(keep, ast.Constant) and keep.value is True)
    return found


def _module_call(node: ast.Call) -> bool:
    """np.sum(x, ...): the first argument is the array, not the axis."""
    return (
        isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id in ("np", "numpy")
    )


def _shapes(message: str) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """(the gradient's shape, the input's) from numpy's broadcasting error, the smaller first."""
    match = _REMAPPED.search(message)
    if match is not None:
        return _numbers(match["small"]), _numbers(match["big"])
    match = _SHAPES.search(message)
    if match is None:
        return None
    a, b = _numbers(match["a"]), _numbers(match["b"])
    return (a, b) if len(a) < len(b) else (b, a)


def _numbers(text: str) -> tuple[int, ...]:
    return tuple(int(n) for n in text.replace(" ", "").split(",") if n)


def _removed_axes(small: tuple[int, ...], big: tuple[int, ...]) -> tuple[int, ...] | None:
    """The axes of `big` that `small` is `big` without (in
    order), where it is that and cannot broadcast to it."""
    if not small or len(small) >= len(big) or _broadcasts(small, big):
        return None
    kept, axes = 0, []
    for axis, size in enumerate(big):
        if kept < len(small) and small[kept] == size:
            kept += 1
        else:
            axes.append(axis)
    return tuple(axes) if kept == len(small) else None


def _broadcasts(small: tuple[int, ...], big: tuple[int, ...]) -> bool:
    return all(s in (1, b) for s, b in zip(reversed(small), reversed(big), strict=False))


def shape_text(shape: tuple[int, ...]) -> str:
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def axes_text(axes: tuple[int, ...]) -> str:
    return (
        f"axis {axes[0]}"
        if len(axes) == 1
        else "axes " + ", ".join(map(str, axes[:-1])) + f" and {axes[-1]}"
    )
