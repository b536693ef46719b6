"""The tolerance policy, in one place: how close is close enough, for students and for oracles."""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Tolerance:
    """Element-wise |got - expected| <= atol + rtol * |expected| (numpy.allclose's rule)."""

    rtol: float
    atol: float

    def close(self, got: float, expected: float) -> bool:
        if math.isnan(expected) or math.isnan(got):
            return math.isnan(expected) and math.isnan(got)
        if math.isinf(expected) or math.isinf(got):
            return got == expected
        return abs(got - expected) <= self.atol + self.rtol * abs(expected)

    def widened(self, other: Tolerance) -> Tolerance:
        """A tolerance that lets through whatever this
        one or `other` does: the larger of each term."""
        return Tolerance(rtol=max(self.rtol, other.rtol), atol=max(self.atol, other.atol))


#: student vs reference, float64 on both sides (autograd-mistakes.md 3.4)
DEFAULT_TOLERANCE = Tolerance(rtol=1e-6, atol=1e-9)
#: torch's float64 engine vs the pure-Python reference: the same maths, other rounding
ENGINE_AGREEMENT = Tolerance(rtol=1e-9, atol=1e-12)
#: CUDA runs (often float32, other kernels) against the CPU float64 expectation (3.4)
CUDA_TOLERANCE = Tolerance(rtol=1e-4, atol=1e-6)
#: central differences vs the reference: relative error < 1e-5 on composite probes (3.4)
FD_AGREEMENT = Tolerance(rtol=1e-5, atol=1e-7)
#: step of the central difference, float64
FD_EPS = 1e-6
