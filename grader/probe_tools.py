"""Helpers that probe code on the torch engine may call, bound before any student code runs."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch

__all__ = ["gradcheck", "torch"]  # torch too: probes use this reference, which no submission can take away

# Taken at import, in the zygote: a submission that patches torch.autograd.gradcheck later
# changes only its own module attribute, not this reference.
_gradcheck = torch.autograd.gradcheck


def gradcheck(fn: Callable[..., torch.Tensor | Sequence[torch.Tensor]], *inputs: torch.Tensor) -> str:
    """torch.autograd.gradcheck on float64 inputs: 'passed', or the first line of what went wrong."""
    try:
        passed = _gradcheck(fn, inputs, raise_exception=True)
    except Exception as exc:  # noqa: BLE001 - any failure inside the student's Function is the answer
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        return f"{type(exc).__name__}: {first}".rstrip(": ")
    return "passed" if passed else "failed"
