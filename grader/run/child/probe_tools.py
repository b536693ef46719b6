"""Helpers that probe code on the torch engine may call, bound before any student code runs."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

import torch

from grader.run.child import reading

# torch too: probes use this reference, which no submission can take away
__all__ = ["gradcheck", "torch"]

#: torch.autograd.gradcheck's defaults: the step of its central differences, and its tolerance
EPS = 1e-6
ATOL, RTOL = 1e-5, 1e-3

# Taken at import, in the zygote, before any submission runs: one that patches torch later (its
# gradcheck module, torch.allclose, Tensor's methods) changes only what it calls itself.
_grad, _no_grad, _tensor_type = torch.autograd.grad, torch.no_grad, torch.Tensor
_detach, _clone, _reshape, _numel = (
    torch.Tensor.detach,
    torch.Tensor.clone,
    torch.Tensor.reshape,
    torch.Tensor.numel,
)
_getitem, _setitem = torch.Tensor.__getitem__, torch.Tensor.__setitem__
_requires_grad = torch.Tensor.requires_grad.__get__  # type: ignore[attr-defined]
_zeros_like = torch.zeros_like
reading.bind_tensor_methods(torch.Tensor)
#: one (output, input position, analytical rows, outputs at x + eps, outputs at x - eps) per pair
Pair = tuple[
    int,
    int,
    tuple[tuple[float, ...], ...],
    tuple[tuple[float, ...], ...],
    tuple[tuple[float, ...], ...],
]


def gradcheck(
    fn: Callable[..., torch.Tensor | Sequence[torch.Tensor]], *inputs: torch.Tensor
) -> str:
    """torch.autograd.gradcheck's test, on float64 inputs: 'passed', or gradcheck's first line for
    the first pair that differs. The Jacobian the backward gives and the outputs at x +- eps are
    read as numbers and compared here, never by torch code a submission could have patched; an error
    on the way is the answer: its first line."""
    try:
        return verdict(_jacobians(fn, inputs))
    except Exception as exc:  # noqa: BLE001 - a failure in the student's Function is the answer
        text = str(exc)
        text = str.__str__(text).strip() if issubclass(type(text), str) else ""
        first = text.splitlines()[0] if text else ""
        name = type.__dict__["__name__"].__get__(type(exc))
        return f"{str.__str__(name)}: {first}".rstrip(": ")


def verdict(pairs: tuple[Pair, ...], eps: float = EPS) -> str:
    """'passed', or the first line torch's gradcheck gives for the first pair that differs."""
    for pair in pairs:
        if not _agree(pair, eps):
            return (
                f"GradcheckError: Jacobian mismatch for output {pair[0]} with respect to input "
                f"{pair[1]},"
            )
    return "passed"


def _agree(pair: Pair, eps: float) -> bool:
    _, _, analytical, plus, minus = pair
    if len(plus) != len(minus) or any(len(row) != len(plus) for row in analytical):
        return False
    for j, (up, down) in enumerate(zip(plus, minus, strict=True)):
        if len(up) != len(analytical) or len(down) != len(up):
            return False
        for k, (a, b) in enumerate(zip(up, down, strict=True)):
            numerical = (a - b) / (2 * eps)
            given = analytical[k][j]
            if not abs(given - numerical) <= ATOL + RTOL * abs(numerical):  # nan fails too
                return False
    return True


def _jacobians(fn: Callable[..., Any], inputs: tuple[Any, ...]) -> tuple[Pair, ...]:
    chosen = [i for i, x in enumerate(inputs) if type(x) is _tensor_type and _requires_grad(x)]
    outputs = _outputs(fn(*inputs))
    pairs = []
    for o, out in enumerate(outputs):
        flat = _reshape(out, -1)
        for position, i in enumerate(chosen):
            x = inputs[i]
            rows = []
            for k in range(_numel(flat)):
                (g,) = _grad(_getitem(flat, k), x, retain_graph=True, allow_unused=True)
                rows.append(reading.tensor_numbers(_zeros_like(x) if g is None else g))
            plus, minus = _moved(fn, inputs, i, o)
            pairs.append((o, position, tuple(rows), plus, minus))
    return tuple(pairs)


def _moved(
    fn: Callable[..., Any], inputs: tuple[Any, ...], i: int, o: int
) -> tuple[tuple[tuple[float, ...], ...], ...]:
    """Output `o` with each element of input `i` moved by +eps, then by -eps: one row per
    element."""
    sides: list[list[tuple[float, ...]]] = [[], []]
    at = reading.tensor_numbers(inputs[i])
    for j in range(len(at)):
        for side, step in ((0, EPS), (1, -EPS)):
            moved = [_clone(_detach(t)) if type(t) is _tensor_type else t for t in inputs]
            _setitem(_reshape(moved[i], -1), j, at[j] + step)
            with _no_grad():
                sides[side].append(reading.tensor_numbers(_outputs(fn(*moved))[o]))
    return tuple(sides[0]), tuple(sides[1])


def _outputs(result: object) -> tuple[torch.Tensor, ...]:
    items = tuple(cast(Sequence[Any], result)) if type(result) in (tuple, list) else (result,)
    for item in items:
        if type(item) is not _tensor_type:
            raise TypeError(f"gradcheck: the function returned {type(item).__name__}, not a tensor")
    return items
