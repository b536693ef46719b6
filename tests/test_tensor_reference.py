"""The tensor reference engine: torch float64 and central differences agree with it, op by op and composed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch

from reference.tensor import Tensor, sum_to_shape
from reference.tensor_tasks import BACKWARD_ORDER, BatchNormPaths, functions, ninja_graph
from reference.torch_tensor import TorchTensor, torch_tensor_class

RNG = np.random.default_rng(17)
ENGINES = [Tensor, TorchTensor]


def away_from_zero(*shape: int) -> np.ndarray:
    """Values in 0.3..3 in magnitude: away from relu's kink and log's edge."""
    return RNG.uniform(0.3, 3.0, shape) * RNG.choice([-1.0, 1.0], shape)


def central(f: Callable[[np.ndarray], float], x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        grad[i] = (f(up) - f(down)) / (2 * eps)
    return grad


# Each case: inputs, and a function of engine tensors; the upstream gradient is random.
CASES: dict[str, tuple[list[np.ndarray], Callable[..., Any]]] = {
    "broadcast add, sub, mul, div": (
        [away_from_zero(2, 1, 4), away_from_zero(3, 1)],
        lambda x, y: (x + y) * (x - y) / (y * y + 1.0) - 2.0 / (x * x + 1.0)),
    "neg, pow, exp, log, relu, tanh": (
        [away_from_zero(3, 4), np.abs(away_from_zero(3, 4))],
        lambda x, y: -(x**3) + x.exp() * y.log() + x.relu() * y ** -2 + x.tanh()),
    "sum and mean over axes, keepdims or not": (
        [away_from_zero(2, 3, 4)],
        lambda x: x.sum(axis=1, keepdims=True) * x.mean(axis=(0, 2), keepdims=True).sum()
        + x.mean(axis=-1, keepdims=True)),
    "max over an axis and over all": (
        [away_from_zero(3, 5)],
        lambda x: x.max(axis=1, keepdims=True) * x + x.max() * x.max(axis=0)),
    "reshape, transpose, broadcast_to, slices": (
        [away_from_zero(2, 3, 4)],
        lambda x: x.reshape(6, 4).T.reshape(4, 3, 2).transpose(2, 0, 1)[:, 1:, ::2] * x.sum(0)[None, :, 1:3]
        + x[1].broadcast_to((2, 3, 4))[:, :, :2]),
    "integer-array indexing picks rows twice": (
        [away_from_zero(5, 3)],
        lambda c: c[np.array([[0, 4], [4, 1], [2, 0]])] * c[np.arange(3), np.array([2, 0, 1])].reshape(3, 1, 1)),
    "2-D and batched matmul": (
        [away_from_zero(2, 3, 4, 5), away_from_zero(5, 6), away_from_zero(4, 4)],
        lambda a, b, s: (a @ b).sum(axis=(0, 1)) + (s @ s.T) @ (a @ b)[0, 1]),
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_the_engines_agree_with_each_other_and_with_central_differences(case: str) -> None:
    inputs, f = CASES[case]
    out_shape = f(*[Tensor(x) for x in inputs]).shape
    g = away_from_zero(*out_shape)
    results = []
    for engine in ENGINES:
        tensors = [engine(x) for x in inputs]
        out = f(*tensors)
        out.backward(g)
        results.append((out.data, [t.grad for t in tensors]))
    (ours, our_grads), (theirs, their_grads) = results
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)
    for i, x in enumerate(inputs):
        assert our_grads[i].shape == x.shape
        np.testing.assert_allclose(our_grads[i], their_grads[i], rtol=1e-10, atol=1e-12)

        def loss(changed: np.ndarray, i: int = i) -> float:
            values = [changed if j == i else other for j, other in enumerate(inputs)]
            return float((f(*[Tensor(v) for v in values]).data * g).sum())

        np.testing.assert_allclose(our_grads[i], central(loss, x), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("engine", ENGINES)
def test_backward_seeds_a_single_number_with_one_and_asks_for_a_gradient_otherwise(engine: type) -> None:
    x = engine(np.array([[1.5, -2.0], [3.0, 0.5]]))
    (x * x).sum().backward()
    np.testing.assert_array_equal(x.grad, 2 * x.data)
    with pytest.raises((ValueError, RuntimeError)):
        (x * x).backward()


@pytest.mark.parametrize("engine", ENGINES)
def test_leaves_add_up_over_backward_calls_and_shared_subgraphs_count_once(engine: type) -> None:
    a, g = away_from_zero(3, 2), away_from_zero(3, 2)
    x = engine(a)
    h = x * x
    out = h * h + h  # h is used twice; x reaches out through h only
    out.backward(g)
    first = x.grad.copy()
    np.testing.assert_allclose(first, g * (4 * a**3 + 2 * a))
    out.backward(g)  # the same graph again: the leaf's gradient doubles, as in torch
    np.testing.assert_allclose(x.grad, 2 * first)


def test_tied_maxima_share_the_gradient_as_in_torch() -> None:
    data = np.array([[3.0, 1.0, 3.0], [0.5, 2.0, -1.0]])
    for engine in ENGINES:
        x = engine(data)
        x.max(axis=1).backward(np.array([1.0, 1.0]))
        np.testing.assert_array_equal(x.grad, [[0.5, 0.0, 0.5], [0.0, 1.0, 0.0]])


def test_sum_to_shape_sums_prepended_axes_then_stretched_ones() -> None:
    g = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(sum_to_shape(g, (3, 1)), g.sum(axis=(0, 2)).reshape(3, 1))
    np.testing.assert_array_equal(sum_to_shape(g, (4,)), g.sum(axis=(0, 1)))
    np.testing.assert_array_equal(sum_to_shape(g, ()), g.sum())
    np.testing.assert_array_equal(sum_to_shape(g, (2, 3, 4)), g)


def _ninja_inputs() -> dict[str, np.ndarray]:
    return {"C": away_from_zero(7, 2), "W1": away_from_zero(6, 9) / 3, "b1": away_from_zero(9) / 5,
            "bngain": 1 + away_from_zero(1, 9) / 10, "bnbias": away_from_zero(1, 9) / 10,
            "W2": away_from_zero(9, 7) / 3, "b2": away_from_zero(7) / 5,
            "Xb": RNG.integers(0, 7, (8, 3)), "Yb": RNG.integers(0, 7, 8)}


def test_the_manual_backprop_reference_agrees_with_torch_and_central_differences() -> None:
    inputs = _ninja_inputs()
    ours = functions(Tensor)["manual_backward"](functions(Tensor)["forward"](*inputs.values()))
    theirs = functions(TorchTensor)["manual_backward"](functions(TorchTensor)["forward"](*inputs.values()))
    assert list(ours) == list(BACKWARD_ORDER)
    for name in BACKWARD_ORDER:
        np.testing.assert_allclose(ours[name], theirs[name], rtol=1e-9, atol=1e-12, err_msg=name)
    for name in ("W1", "bngain", "C"):
        def loss(changed: np.ndarray, name: str = name) -> float:
            return float(ninja_graph(Tensor, {**inputs, name: changed})[1].data)

        np.testing.assert_allclose(ours[name], central(loss, inputs[name]), rtol=1e-5, atol=1e-8, err_msg=name)


def test_layer_references_agree_with_torch_and_batch_norm_paths_can_be_left_out() -> None:
    x, gamma, beta, dout = away_from_zero(5, 4), away_from_zero(4), away_from_zero(4), away_from_zero(5, 4)
    ours, theirs = functions(Tensor), functions(TorchTensor)
    _, cache = ours["batchnorm_forward"](x, gamma, beta, {"mode": "train"})
    _, their_cache = theirs["batchnorm_forward"](x, gamma, beta, {"mode": "train"})
    for a, b in zip(ours["batchnorm_backward"](dout, cache), theirs["batchnorm_backward"](dout, their_cache),
                    strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
    full = ours["batchnorm_backward"](dout, cache)[0]
    no_mean = ours["batchnorm_backward"](dout, cache, BatchNormPaths(mean=False))[0]
    no_var = ours["batchnorm_backward"](dout, cache, BatchNormPaths(variance=False))[0]
    # Without the mean's path the columns of dx no longer sum to 0; without the variance's, dx . xhat is not 0.
    np.testing.assert_allclose(full.sum(axis=0), 0, atol=1e-9)
    assert np.abs(no_mean.sum(axis=0)).max() > 1e-3 and np.abs(no_mean - no_var).max() > 1e-3
    loss, dx = ours["softmax_loss"](np.array([[1000.0, 0.0, -1000.0], [1.0, 2.0, 3.0]]), np.array([0, 2]))
    assert np.isfinite(loss) and np.isfinite(dx).all()


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_the_torch_twin_on_cuda_matches_the_reference() -> None:
    cuda = torch_tensor_class("cuda")
    inputs, f = CASES["2-D and batched matmul"]
    g = away_from_zero(*f(*[Tensor(x) for x in inputs]).shape)
    ours = [Tensor(x) for x in inputs]
    theirs = [cuda(x) for x in inputs]
    f(*ours).backward(g)
    f(*theirs).backward(g)
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(a.grad, b.grad, rtol=1e-9, atol=1e-12)
    inputs_ = _ninja_inputs()
    want = functions(Tensor)["manual_backward"](functions(Tensor)["forward"](*inputs_.values()))
    got = functions(cuda)["manual_backward"](functions(cuda)["forward"](*inputs_.values()))
    for name in BACKWARD_ORDER:
        np.testing.assert_allclose(want[name], got[name], rtol=1e-9, atol=1e-12, err_msg=name)


def test_asking_for_cuda_without_it_says_so() -> None:
    if torch.cuda.is_available():
        pytest.skip("CUDA is here")
    with pytest.raises(RuntimeError, match="CUDA was asked for"):
        torch_tensor_class("cuda")
