"""Batch norm's own mistakes, for this exercise's diagnosis (grader.judge.diagnose.exercise_code):
the reference's batch norm with one of its rules changed, its paths and its eps.

Two families of CS231n `batchnorm_forward`/`batchnorm_backward` pairs, each a complete pair of
functions a probe can call:

- paths: the backward without the path through the mean, the variance, or both (the reference's own
  autograd with that tensor held constant);
- eps: where eps goes, on its own in each of three places: the forward's standard deviation, the one
  dx divides by, and the one dgamma's xhat divides by. eps inside the root is right; eps missing
  (sqrt(var)) and eps outside it (sqrt(var) + eps) are the mistakes, and a dx with eps outside is
  either the usual closed form with that std, or the true gradient of a forward written that way.

Each variant's `changes` say what it changes, one fact per place, so that a check that shows only
the forward names only the forward (grader.judge.tensor.tensor_variants.matching).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np

from grader.judge.tensor.tensor_variants import Variant
from reference.tensor import Array
from reference.tensor import Tensor as ReferenceTensor
from reference.tensor_tasks import BN_EPS, BatchNormPaths, functions

Names = dict[str, object]
#: (mistake, hint, changes, what the probes see instead of the reference's two functions)
Found = list[tuple[str, str, frozenset[str], Names]]

BATCH_NORM = (
    "Batch norm's gradient reaches x on three paths: through x - mean directly, through the batch mean, "
    "and through the batch variance (every x moves both). "
)
EPS = (
    "eps belongs inside the square root, std = sqrt(var + eps), in the forward and wherever the backward divides "
    "by the standard deviation (dx and dgamma alike): "
)
_FORWARD = ("inside", "missing", "outside")
_DX = ("inside", "missing", "outside", "outside-true")
_SAID = {
    "missing": "sqrt(var), without eps",
    "outside": "sqrt(var) + eps, eps outside the root",
    "outside-true": "sqrt(var) + eps (eps outside the root)",
}


def path_variants() -> Found:
    """The backward without one of batch norm's paths, or without both."""
    backward = functions(ReferenceTensor)["batchnorm_backward"]
    cases = [
        (
            "batchnorm-mean-path-missing",
            BatchNormPaths(mean=False),
            "The path through the mean is missing: dx also gets -sum(dxhat) / (N * std) in each column.",
        ),
        (
            "batchnorm-variance-path-missing",
            BatchNormPaths(variance=False),
            "The path through the variance is missing: dx also gets -xhat * sum(dxhat * xhat) / (N * std).",
        ),
        (
            "batchnorm-direct-path-only",
            BatchNormPaths(mean=False, variance=False),
            "Only the direct path (dxhat / std) is there: the paths through the mean and the variance are missing.",
        ),
    ]
    found: Found = []
    for mistake, paths, hint in cases:
        changed: Callable[..., Any] = lambda dout, cache, paths=paths: backward(dout, cache, paths)  # noqa: E731
        found.append(
            (mistake, BATCH_NORM + hint, frozenset({mistake}), {"batchnorm_backward": changed})
        )
    return found


def eps_variants() -> Found:
    """Every placement of eps in the forward, dx and dgamma but the right one."""
    found: Found = []
    for forward, dx, dgamma in itertools.product(_FORWARD, _DX, _FORWARD):
        if forward == dx == dgamma == "inside":
            continue
        places = {"forward": forward, "dx": dx, "dgamma": dgamma}
        changes = frozenset(f"{place}:{form}" for place, form in places.items() if form != "inside")
        said = [
            f"{_WHERE[place]} {_SAID[form]}" for place, form in places.items() if form != "inside"
        ]
        hint = EPS[0].upper() + EPS[1:] + "; ".join(said) + "."
        found.append(
            (
                "batchnorm-eps",
                hint,
                changes,
                {
                    "batchnorm_forward": _forward(forward),
                    "batchnorm_backward": _backward(dx, dgamma),
                },
            )
        )
    return found


_WHERE = {
    "forward": "batchnorm_forward divides by",
    "dx": "dx divides by",
    "dgamma": "dgamma's xhat divides by",
}


def _std(var: Array, eps: float, form: str) -> Array:
    if form == "missing":
        return np.sqrt(var)
    if form in ("outside", "outside-true"):
        return np.sqrt(var) + eps
    return np.sqrt(var + eps)


def _forward(form: str) -> Callable[..., tuple[Array, Any]]:
    def batchnorm_forward(
        x: Array, gamma: Array, beta: Array, bn_param: dict[str, Any]
    ) -> tuple[Array, Any]:
        x, gamma, beta = (np.asarray(v, dtype=np.float64) for v in (x, gamma, beta))
        eps = float(bn_param.get("eps", BN_EPS))
        out = gamma * (x - x.mean(axis=0)) / _std(x.var(axis=0), eps, form) + beta
        return out, (x, gamma, eps)

    return batchnorm_forward


def _backward(dx_form: str, dgamma_form: str) -> Callable[..., tuple[Array, Array, Array]]:
    def batchnorm_backward(dout: Array, cache: Any) -> tuple[Array, Array, Array]:
        x, gamma, eps = cache
        dout = np.asarray(dout, dtype=np.float64)
        n = x.shape[0]
        centred, var = x - x.mean(axis=0), x.var(axis=0)
        dxhat = dout * gamma
        if dx_form == "outside-true":  # the chain rule through (x - mean) / (sqrt(var) + eps)
            root = np.sqrt(var)
            std = root + eps
            dvar = -(dxhat * centred).sum(axis=0) / std**2 / (2 * root)
            dcentred = dxhat / std + dvar * 2 * centred / n
            dx = dcentred - dcentred.mean(axis=0)
        else:  # the usual closed form, with the student's std
            std = _std(var, eps, dx_form)
            xhat = centred / std
            dx = (n * dxhat - dxhat.sum(axis=0) - xhat * (dxhat * xhat).sum(axis=0)) / (n * std)
        dgamma = (dout * centred / _std(var, eps, dgamma_form)).sum(axis=0)
        return dx, dgamma, dout.sum(axis=0)

    return batchnorm_backward


def variants(names: Names) -> list[Variant]:
    """The reference with batch norm's paths or eps changed, over the reference's `names`."""
    found = []
    for mistake, hint, changes, changed in path_variants():
        found.append(Variant(mistake, hint, {**names, **changed}, "batchnorm-paths", changes))
    for mistake, hint, changes, changed in eps_variants():
        found.append(Variant(mistake, hint, {**names, **changed}, "batchnorm-eps", changes))
    return found
