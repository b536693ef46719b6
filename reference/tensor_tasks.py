"""The reference answers of the tensor exercises that
ask for functions, written once over any tensor engine.

`functions(T)` gives them on the engine class `T`: the numpy `Tensor` (the expected values) or a
torch twin (the confirmation). Each backward is autograd through the engine, never a formula
written by hand, so a student's hand-written gradient is checked against the chain rule itself.
The contracts are the courses' own: CS231n's `layers.py` (affine, relu, batch norm,
`softmax_loss`) and Karpathy's "Becoming a backprop ninja" forward pass.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from reference.tensor import Array

Engine = Any  # a tensor class with the interface of reference.tensor.Tensor
Function = Callable[..., Any]

#: the backprop-ninja forward's intermediates, in the order the forward makes them
FORWARD_ORDER = (
    "emb",
    "embcat",
    "hprebn",
    "bnmeani",
    "bndiff",
    "bndiff2",
    "bnvar",
    "bnvar_inv",
    "bnraw",
    "hpreact",
    "h",
    "logits",
    "logit_maxes",
    "norm_logits",
    "counts",
    "counts_sum",
    "counts_sum_inv",
    "probs",
    "logprobs",
)
PARAMETERS = ("C", "W1", "b1", "bngain", "bnbias", "W2", "b2")
#: the gradients a student writes, in backward order: each one needs only those before it
BACKWARD_ORDER = (
    "logprobs",
    "probs",
    "counts_sum_inv",
    "counts_sum",
    "counts",
    "norm_logits",
    "logit_maxes",
    "logits",
    "h",
    "W2",
    "b2",
    "hpreact",
    "bngain",
    "bnbias",
    "bnraw",
    "bnvar_inv",
    "bnvar",
    "bndiff2",
    "bndiff",
    "bnmeani",
    "hprebn",
    "embcat",
    "W1",
    "b1",
    "emb",
    "C",
)
BN_EPS = 1e-5


@dataclass(frozen=True, slots=True)
class BatchNormPaths:
    """Which of batch norm's paths from x to its output
    count: through x - mean, the mean, the variance."""

    mean: bool = True
    variance: bool = True


def ninja_graph(T: Engine, arrays: Mapping[str, Array]) -> tuple[dict[str, Any], Any]:
    """The backprop-ninja forward on engine `T`, from `arrays` by name (PARAMETERS, Xb and Yb):
    every named tensor (parameters too), and the loss."""
    p = {name: T(arrays[name]) for name in PARAMETERS}
    Xb, Yb = arrays["Xb"], arrays["Yb"]
    n = Xb.shape[0]
    t: dict[str, Any] = {}
    t["emb"] = p["C"][Xb.astype(np.int64)]
    t["embcat"] = t["emb"].reshape(n, -1)
    t["hprebn"] = t["embcat"] @ p["W1"] + p["b1"]
    t["bnmeani"] = t["hprebn"].sum(0, keepdims=True) * (1 / n)
    t["bndiff"] = t["hprebn"] - t["bnmeani"]
    t["bndiff2"] = t["bndiff"] ** 2
    # Bessel's correction, as the lecture
    t["bnvar"] = t["bndiff2"].sum(0, keepdims=True) * (1 / (n - 1))
    t["bnvar_inv"] = (t["bnvar"] + BN_EPS) ** -0.5
    t["bnraw"] = t["bndiff"] * t["bnvar_inv"]
    t["hpreact"] = p["bngain"] * t["bnraw"] + p["bnbias"]
    t["h"] = t["hpreact"].tanh()
    t["logits"] = t["h"] @ p["W2"] + p["b2"]
    t["logit_maxes"] = t["logits"].max(1, keepdims=True)
    t["norm_logits"] = t["logits"] - t["logit_maxes"]
    t["counts"] = t["norm_logits"].exp()
    t["counts_sum"] = t["counts"].sum(1, keepdims=True)
    t["counts_sum_inv"] = t["counts_sum"] ** -1
    t["probs"] = t["counts"] * t["counts_sum_inv"]
    t["logprobs"] = t["probs"].log()
    loss = -(t["logprobs"][np.arange(n), Yb.astype(np.int64)].mean())
    return {**p, **t}, loss


def functions(T: Engine) -> dict[str, Function]:
    """Every function a tensor exercise may ask for, on engine `T`."""
    return {
        **_softmax_functions(T),
        **_layer_functions(T),
        **_batchnorm_functions(T),
        **_ninja_functions(T),
    }


def _log_softmax(t: Any) -> Any:
    z = t - t.data.max(axis=-1, keepdims=True)  # a constant shift: exp never overflows
    return z - z.exp().sum(axis=-1, keepdims=True).log()


def _cross_entropy(logits: Any, y: Array) -> Any:
    n = logits.shape[0]
    return -(_log_softmax(logits)[np.arange(n), np.asarray(y, dtype=np.int64)].mean())


def _softmax_functions(T: Engine) -> dict[str, Function]:
    """The softmax's: its log, CS231n's `softmax_loss`, and a two-layer network's SGD step."""

    def softmax_loss(x: Array, y: Array) -> tuple[float, Array]:
        t = T(x)
        loss = _cross_entropy(t, y)
        loss.backward()
        return float(loss.data), t.grad

    def mlp_step(
        W1: Array, b1: Array, W2: Array, b2: Array, X: Array, y: Array, lr: float
    ) -> tuple[Any, ...]:
        params = [T(p) for p in (W1, b1, W2, b2)]
        activations = (T(X) @ params[0] + params[1]).relu()
        loss = _cross_entropy(activations @ params[2] + params[3], y)
        loss.backward()
        return (float(loss.data), *(p.data - lr * p.grad for p in params))

    return {
        "log_softmax": lambda x: _log_softmax(T(x)).data,
        "softmax_loss": softmax_loss,
        "mlp_step": mlp_step,
    }


def _layer_functions(T: Engine) -> dict[str, Function]:
    """CS231n's affine and relu layers, forward and backward."""

    def affine(x: Any, w: Any, b: Any) -> Any:
        return x.reshape(x.shape[0], -1) @ w + b

    def affine_forward(x: Array, w: Array, b: Array) -> tuple[Array, Any]:
        return affine(T(x), T(w), T(b)).data, (x, w, b)

    def affine_backward(dout: Array, cache: Any) -> tuple[Array, Array, Array]:
        x, w, b = (T(v) for v in cache)
        affine(x, w, b).backward(dout)
        return x.grad, w.grad, b.grad

    def relu_forward(x: Array) -> tuple[Array, Any]:
        return T(x).relu().data, x

    def relu_backward(dout: Array, cache: Any) -> Array:
        x = T(cache)
        x.relu().backward(dout)
        grad: Array = x.grad
        return grad

    return {
        "affine_forward": affine_forward,
        "affine_backward": affine_backward,
        "relu_forward": relu_forward,
        "relu_backward": relu_backward,
    }


def _batchnorm_functions(T: Engine) -> dict[str, Function]:
    """CS231n's batch norm, forward and backward; `paths` leaves out paths from x to its output,
    as known mistakes do."""

    def batchnorm(
        x: Any, gamma: Any, beta: Any, eps: float, paths: BatchNormPaths = BatchNormPaths()
    ) -> Any:
        mu = x.mean(axis=0)
        mu = mu if paths.mean else T(mu.data)  # a path left out: that tensor as a constant
        var = ((x - mu) ** 2).mean(axis=0)
        var = var if paths.variance else T(var.data)
        return gamma * ((x - mu) / (var + eps) ** 0.5) + beta

    def batchnorm_forward(
        x: Array, gamma: Array, beta: Array, bn_param: dict[str, Any]
    ) -> tuple[Array, Any]:
        eps = float(bn_param.get("eps", BN_EPS))
        return batchnorm(T(x), T(gamma), T(beta), eps).data, (x, gamma, beta, eps)

    def batchnorm_backward(
        dout: Array, cache: Any, paths: BatchNormPaths = BatchNormPaths()
    ) -> tuple[Array, ...]:
        x, gamma, beta = (T(v) for v in cache[:3])
        batchnorm(x, gamma, beta, cache[3], paths).backward(dout)
        return x.grad, gamma.grad, beta.grad

    return {"batchnorm_forward": batchnorm_forward, "batchnorm_backward": batchnorm_backward}


def _ninja_functions(T: Engine) -> dict[str, Function]:
    """Backprop-ninja's forward, and the gradients a student writes by hand."""

    def forward(*arrays: Array) -> dict[str, Any]:
        """forward(C, W1, b1, bngain, bnbias, W2, b2, Xb, Yb), as the notebook's: every
        intermediate's value, the loss, and the arrays it was given, by name."""
        given = dict(zip((*PARAMETERS, "Xb", "Yb"), arrays, strict=True))
        named, loss = ninja_graph(T, given)
        values: dict[str, Any] = {name: named[name].data for name in FORWARD_ORDER}
        return {**values, "loss": float(loss.data), **given}

    def manual_backward(f: dict[str, Any]) -> dict[str, Array]:
        named, loss = ninja_graph(T, f)
        loss.backward()
        return {name: named[name].grad for name in BACKWARD_ORDER}

    return {"forward": forward, "manual_backward": manual_backward}


def reference_names(T: Engine, defines: tuple[tuple[str, str], ...]) -> dict[str, object]:
    """What a tensor exercise's probes see on engine `T`,
    for the names the exercise asks a submission for."""
    known: dict[str, object] = {"Tensor": T, **functions(T)}
    unknown = [name for name, _ in defines if name not in known]
    if unknown:
        raise KeyError(
            f"the tensor reference has no {', '.join(unknown)}; it knows {', '.join(sorted(known))}"
        )
    return {name: known[name] for name, _ in defines}
