"""The reference engines reproduce every number the lessons print, and agree with each other."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from reference.scalar import Node
from reference.torch_engine import TorchNode, torch_node_class

ENGINES = [Node, TorchNode]


@pytest.fixture(params=ENGINES, ids=lambda e: e.__name__)
def N(request: pytest.FixtureRequest) -> type:
    return request.param  # type: ignore[no-any-return]


def test_sigmoid_neuron_prints_the_lesson_numbers(N: type) -> None:
    # "Autograd", step 1 and step 4: loss = 0.1611, dL/dw = -0.2893, dL/db = -0.1928
    w, b = N(0.4), N(-0.2)
    a = (w * 1.5 + b).sigmoid()
    loss = (a - 1.0) ** 2
    loss.backward()
    assert f"{loss.value:.4f}" == "0.1611"
    assert (f"{w.grad:.4f}", f"{b.grad:.4f}") == ("-0.2893", "-0.1928")


def test_relu_network_gives_four_ninths_and_eight_thirds(N: type) -> None:
    # "How does PyTorch find every gradient by itself?": L = 4/9, w1.grad = 8/3, w2.grad = 4/9
    x, w1, w2, y = N(1.0), N(1 / 3), N(2.0), N(0.0)
    s = (x * w1).relu()
    loss = (s * w2 - y) ** 2
    loss.backward()
    assert Fraction(loss.value).limit_denominator(100) == Fraction(4, 9)
    assert Fraction(w1.grad).limit_denominator(100) == Fraction(8, 3)
    assert Fraction(w2.grad).limit_denominator(100) == Fraction(4, 9)


def test_closed_relu_gate_passes_no_gradient(N: type) -> None:
    x, w1, w2 = N(-1.0), N(1 / 3), N(2.0)
    ((x * w1).relu() * w2).backward()
    assert w1.grad == 0.0


def test_a_node_used_twice_gets_six_then_twelve(N: type) -> None:
    w = N(3.0)
    (w * w).backward()
    assert w.grad == 6.0
    (w * w).backward()
    assert w.grad == 12.0


def test_slope_of_the_cubic_at_two_is_eight_and_descent_finds_the_minimum(N: type) -> None:
    x = N(2.0)
    (x**3 - 4 * x).backward()
    assert x.grad == 8.0
    value = 2.0
    for _ in range(100):  # the lesson's loop: 100 steps of lr 0.05 from x = 2
        x = N(value)
        (x**3 - 4 * x).backward()
        value -= 0.05 * x.grad
    assert f"{value:.4f}" == "1.1547"
    assert value == pytest.approx(2 / math.sqrt(3), abs=1e-4)


def test_shared_subgraphs_count_once(N: type) -> None:
    a = N(1.0)
    b = a + a
    (b + b).backward()
    assert a.grad == 4.0
    x = N(1.0)
    h = x * 2
    (h * h + h).backward()
    assert x.grad == 10.0


def test_reflected_operators_and_unary_functions(N: type) -> None:
    x = N(4.0)
    assert (3 - x).value == -1.0 and (2 / x).value == 0.5 and (2 * x).value == 8.0 and (1 + x).value == 5.0
    assert (-x).value == -4.0
    for make, slope in [
        (lambda n: 3 - n, -1.0),
        (lambda n: 2 / n, -2 / 16),
        (lambda n: n.tanh(), 1 - math.tanh(4.0) ** 2),
        (lambda n: n.exp(), math.exp(4.0)),
        (lambda n: n.log(), 0.25),
    ]:
        x = N(4.0)
        make(x).backward()
        assert x.grad == pytest.approx(slope, rel=1e-12)


def test_sigmoid_is_stable_far_from_zero() -> None:
    assert Node(-800.0).sigmoid().value == 0.0
    assert Node(800.0).sigmoid().value == 1.0


values = st.floats(min_value=0.3, max_value=3.0) | st.floats(min_value=-3.0, max_value=-0.3)


@settings(max_examples=60, deadline=None)
@given(a=values, b=values, c=values)
def test_the_engines_agree_with_each_other_and_with_central_differences(a: float, b: float, c: float) -> None:
    def f(N: type, a: float, b: float, c: float) -> tuple[float, float, float, float]:
        x, y, z = N(a), N(b), N(c)
        out = ((x * y).tanh() + (z * z).sigmoid() - x / y + (y - 2) ** 2 + (x * x).exp() * 0.1
               + (z * z + 1).log() - (-z).relu() * x) * 1.7
        out.backward()
        return out.value, x.grad, y.grad, z.grad

    ours, theirs = f(Node, a, b, c), f(TorchNode, a, b, c)
    assert ours == pytest.approx(theirs, rel=1e-10, abs=1e-12)
    eps = 1e-6
    for i, (lo, hi) in enumerate([((a - eps, b, c), (a + eps, b, c)), ((a, b - eps, c), (a, b + eps, c)),
                                  ((a, b, c - eps), (a, b, c + eps))]):
        numeric = (f(Node, *hi)[0] - f(Node, *lo)[0]) / (2 * eps)
        assert ours[i + 1] == pytest.approx(numeric, rel=1e-5, abs=1e-6)


def test_torch_engine_is_float64_on_the_cpu_by_default() -> None:
    t = TorchNode(0.1).tensor
    assert t.dtype == torch.float64 and t.device.type == "cpu"


def test_asking_for_cuda_without_it_says_so() -> None:
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    with pytest.raises(RuntimeError, match="CUDA"):
        torch_node_class("cuda")


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_torch_engine_on_cuda_matches_the_cpu() -> None:
    results = []
    for N in (torch_node_class("cpu"), torch_node_class("cuda")):
        w, b = N(0.4), N(-0.2)
        loss = ((w * 1.5 + b).sigmoid() - 1.0) ** 2
        loss.backward()
        results.append((loss.value, w.grad, b.grad))
    assert results[0] == pytest.approx(results[1], rel=1e-12)
