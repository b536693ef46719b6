"""Comparison under tolerance: every element, shapes exactly, and a sentence that says what differs."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grader.core.compare import compare, fmt, fmt_points, show, show_pair
from grader.core.numeric import DEFAULT_TOLERANCE, Tolerance
from grader.core.values import Array, ErrorInfo, Flag, Nothing, Number, Opaque, Seq, Text

TOL = DEFAULT_TOLERANCE


def test_tolerance_is_numpy_allclose_rule() -> None:
    tol = Tolerance(rtol=1e-3, atol=1e-6)
    assert tol.close(1.0009, 1.0) and not tol.close(1.0011, 1.0)
    assert tol.close(5e-7, 0.0) and not tol.close(2e-6, 0.0)
    assert tol.close(math.nan, math.nan) and not tol.close(math.nan, 1.0) and not tol.close(1.0, math.nan)
    assert tol.close(math.inf, math.inf) and not tol.close(math.inf, -math.inf) and not tol.close(1e308, math.inf)


def test_numbers() -> None:
    assert compare(Number(6.0), Number(6.0 + 1e-9), TOL) is None
    assert compare(Number(6.0), Number(3.0), TOL) == "expected 6.0, got 3.0"
    assert compare(Number(1.0), Number(1.00001), TOL) == "expected 1.0, got 1.00001"
    assert compare(Number(2.0), Array((), (2.0,)), TOL) is None  # a 0-d tensor is a number
    assert compare(Number(2.0), Flag(True), TOL) == "expected 2.0, got True (a bool)"
    assert compare(Number(2.0), Opaque("Node", "Node(2.0)"), TOL) == "expected 2.0, got a Node object (Node(2.0))"
    assert "raised ZeroDivisionError: division by zero" in str(
        compare(Number(2.0), ErrorInfo("ZeroDivisionError", "division by zero"), TOL))


def test_arrays_compare_shape_then_every_element() -> None:
    want = Array((2, 2), (1.0, 2.0, 3.0, 4.0))
    assert compare(want, Array((2, 2), (1.0, 2.0, 3.0, 4.0)), TOL) is None
    assert compare(want, Array((4,), (1.0, 2.0, 3.0, 4.0)), TOL) == "expected shape (2, 2), got shape (4,)"
    assert compare(want, Array((2, 2), (1.0, 2.0, 3.0, 9.0)), TOL) == (
        "1 of 4 elements differ (shape (2, 2)); the first and the worst, at [1, 1]: expected 4.0, got 9.0; "
        "largest error 5.0; in row [1, :] got [3.0, 9.0] where [3.0, 4.0] was expected")
    assert compare(want, Number(1.0), TOL) == "expected a tensor of shape (2, 2), got 1.0"


def test_an_array_report_names_the_first_and_the_worst_element_and_shows_the_row_around_the_first() -> None:
    want = Array((2, 3, 8), tuple(float(i) for i in range(48)))
    data = list(want.data)
    data[9], data[21] = 19.0, -100.0  # [0, 1, 1] first, [0, 2, 5] worst
    message = compare(want, Array((2, 3, 8), tuple(data)), TOL)
    assert message == (
        "2 of 48 elements differ (shape (2, 3, 8)); the first, at [0, 1, 1]: expected 9.0, got 19.0; the worst, at "
        "[0, 2, 5]: expected 21.0, got -100.0; largest error 121.0; in row [0, 1, :] got [8.0, 19.0, 10.0, 11.0, 12.0, "
        "13.0, ...] where [8.0, 9.0, 10.0, 11.0, 12.0, 13.0, ...] was expected")
    nan = compare(Array((3,), (1.0, 2.0, 3.0)), Array((3,), (1.0, math.nan, 3.0)), TOL)
    assert nan is not None and "largest error inf or nan" in nan and "around it, got [1.0, nan, 3.0]" in nan


def test_arrays_are_shown_nested_with_an_excerpt_of_each_axis() -> None:
    assert show(Array((2, 3, 5), tuple(float(i) for i in range(30)))) == (
        "tensor of shape (2, 3, 5): [[[0.0, 1.0, 2.0, 3.0, ...], [5.0, 6.0, 7.0, 8.0, ...], ...], "
        "[[15.0, 16.0, 17.0, 18.0, ...], [20.0, 21.0, 22.0, 23.0, ...], ...]]")
    assert show(Array((3,), (1.0, 2.0, 3.0))) == "tensor of shape (3,): [1.0, 2.0, 3.0]"


def test_sequences_and_others() -> None:
    assert compare(Seq((Number(1.0), Number(2.0))), Seq((Number(1.0), Number(2.0)), "tuple"), TOL) is None
    assert compare(Seq((Number(1.0), Number(2.0))), Seq((Number(1.0),)), TOL) == (
        "expected a list of 2: [1.0, 2.0], got one of 1: [1.0]")
    assert compare(Seq((Text("a"), Text("b"))), Seq((Text("b"),)), TOL) == (
        "expected a list of 2: ['a', 'b'], got one of 1: ['b']; they first differ at [0]")
    assert compare(Seq((Number(1.0), Number(2.0))), Seq((Number(1.0), Number(5.0))), TOL) == (
        "item [1]: expected 2.0, got 5.0")
    assert compare(Text("MulBackward0"), Text("MulBackward"), TOL) == (
        "expected 'MulBackward0', got the text 'MulBackward'")
    assert compare(Nothing(), Nothing(), TOL) is None
    assert compare(Flag(True), Flag(False), TOL) is not None
    assert compare(ErrorInfo("RuntimeError", "x"), ErrorInfo("RuntimeError", "y"), TOL) is None


def test_observed_type_names_are_worded_for_a_person() -> None:
    types = Seq((Text("float"), Text("float")))
    assert compare(types, Seq((Text("float"), Text("Tensor"))), TOL) == (
        "item [1]: a torch Tensor where a plain float was expected: call `.item()` to turn a one-number tensor "
        "into a float")
    assert compare(Text("list"), Text("tuple"), TOL) == "a tuple where a list was expected: wrap it in list()"
    assert compare(Text("float"), Text("Node"), TOL) == "a Node where a plain float was expected"
    # text that is not two type names this grader knows keeps the plain wording
    assert compare(Text("float"), Text("Floaty"), TOL) == "expected 'float', got the text 'Floaty'"


@given(st.floats(allow_nan=False, allow_infinity=False, width=64), st.floats(allow_nan=False,
                                                                             allow_infinity=False))
def test_different_numbers_are_shown_differently(a: float, b: float) -> None:
    left, right = show_pair(a, b)
    # 0.0 and -0.0 are equal, yet shown as they are: the same text only for the very same number
    assert (left == right) == (a == b and math.copysign(1, a) == math.copysign(1, b))


def test_formatting() -> None:
    assert fmt(6.0) == "6.0" and fmt(-0.28927) == "-0.28927" and fmt(1e-12) == "1e-12"
    assert fmt_points(10.0) == "10" and fmt_points(2.5) == "2.5" and fmt_points(1 / 3) == "0.33"


@pytest.mark.parametrize("value", [Number(1.0), Array((1,), (1.0,)), Seq(()), Text("")])
def test_an_opaque_expectation_is_reported_as_an_exercise_bug(value: object) -> None:
    assert "needs fixing" in str(compare(Opaque("x", ""), value, TOL))  # type: ignore[arg-type]
