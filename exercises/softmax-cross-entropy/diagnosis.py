"""The softmax loss's own mistakes, for this exercise's diagnosis
(grader.judge.diagnose.exercise_code): the reference's `softmax_loss` shifted by nothing or by the
whole batch's maximum instead of each row's, or taking the log of softmax probabilities that
underflow to 0. A right dx is written two ways (from the probabilities, or from the log-softmax):
neither is a change of its own.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from grader.judge.tensor.tensor_variants import Variant
from reference.tensor import Array as Arr

_SHIFTS = {
    "none": (
        "softmax-overflow",
        "exp overflows for large logits (above about 709), giving inf and then nan: "
        "subtract each row's maximum before exp; the softmax does not change.",
    ),
    "batch": (
        "softmax-batch-max-shift",
        "The logits are shifted by the maximum of the whole batch (x.max()), not "
        "by each row's own (x.max(axis=1, keepdims=True)): in a row far below that "
        "maximum every exp underflows to 0, and its softmax is 0/0 = nan.",
    ),
}
_LOG_OF_PROBS = (
    "log-of-softmax-underflow",
    "The log of a probability that underflowed to 0 is -inf: take the "
    "log-softmax directly, z - log(sum(exp(z))) with z = x - max(x) in each row, rather than the log "
    "of the softmax.",
)


def variants(names: dict[str, object]) -> list[Variant]:
    """The reference with the softmax loss changed, over the reference's `names`."""
    def loss(
        shift: str, log_of_probs: bool, dx_from_log: bool
    ) -> Callable[[Arr, Arr], tuple[float, Arr]]:
        def softmax_loss(x: Arr, y: Arr) -> tuple[float, Arr]:
            x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.int64)
            n = x.shape[0]
            z = (
                x - x.max(axis=1, keepdims=True)
                if shift == "row"
                else x - x.max()
                if shift == "batch"
                else x
            )
            p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
            log_softmax = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
            logp = np.log(p) if log_of_probs else log_softmax
            dx = np.exp(log_softmax) if dx_from_log else p.copy()
            dx[np.arange(n), y] -= 1
            return float(-logp[np.arange(n), y].mean()), dx / n

        return softmax_loss

    variants = []
    for shift in ("row", "none", "batch"):
        for log_of_probs in (False, True):
            if shift == "row" and not log_of_probs:
                continue
            mistake, hint = _SHIFTS[shift] if shift != "row" else _LOG_OF_PROBS
            if shift != "row" and log_of_probs:
                hint = f"{hint} {_LOG_OF_PROBS[1]}"
            changes = frozenset({f"shift:{shift}"} if shift != "row" else set()) | frozenset(
                {"log:probs"} if log_of_probs else set()
            )
            for dx_from_log in (
                False,
                True,
            ):  # two ways of writing the same right dx: no change of their own
                changed = {**names, "softmax_loss": loss(shift, log_of_probs, dx_from_log)}
                variants.append(Variant(mistake, hint, changed, "softmax", changes))
    return variants
