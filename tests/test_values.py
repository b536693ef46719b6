"""Plain data across the boundary: objects become data without trusting them; replies parse strictly."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.core.values import (
    MAX_DEPTH,
    Array,
    BadReply,
    ErrorInfo,
    Flag,
    Nothing,
    Number,
    Opaque,
    Seq,
    Text,
    Where,
    from_data,
    to_data,
)
from grader.run.child.reading import from_python


class SneakyFloat(float):
    def __float__(self) -> float:
        return 6.0

    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = float.__hash__


class PretendsToBeAFloat:
    @property  # type: ignore[misc]
    def __class__(self) -> type:
        return float

    def __float__(self) -> float:
        return 6.0


class AlwaysEqual:
    def __eq__(self, other: object) -> bool:
        return True

    def __repr__(self) -> str:
        return "<AlwaysEqual at 0xdeadbeef>"


class ReprRaises:
    def __repr__(self) -> str:
        raise RuntimeError("no")


def test_numbers_are_read_without_calling_student_methods() -> None:
    assert from_python(SneakyFloat(2.5)) == Number(2.5)
    assert from_python(3) == Number(3.0)
    assert from_python(10**400) == Number(math.inf)
    assert from_python(True) == Flag(True)
    assert from_python(np.float64(1.25)) == Number(1.25)
    assert from_python(np.int32(7)) == Number(7.0)
    assert from_python(np.bool_(False)) == Flag(False)


def test_objects_that_fake_their_class_stay_opaque() -> None:
    value = from_python(PretendsToBeAFloat())
    assert isinstance(value, Opaque) and value.type_name == "PretendsToBeAFloat"


def test_opaque_objects_are_shown_but_never_equal_a_number() -> None:
    value = from_python(AlwaysEqual())
    assert value == Opaque("AlwaysEqual", "<AlwaysEqual>")  # memory addresses are dropped: reports stay stable
    assert value != Number(1.0)
    assert from_python(ReprRaises()).text.startswith("<ReprRaises object; its repr() raised RuntimeError")  # type: ignore[union-attr]


def test_containers_and_text() -> None:
    assert from_python([1, (2.0, None), "s"]) == Seq(
        (Number(1.0), Seq((Number(2.0), Nothing()), "tuple"), Text("s")), "list")
    deep: list[object] = []
    for _ in range(MAX_DEPTH + 5):
        deep = [deep]
    assert "nested more than" in str(from_python(deep))
    assert isinstance(from_python({"a": 1}), Opaque)


def test_tensors_and_arrays_are_flattened_with_their_shape() -> None:
    t = torch.arange(6, dtype=torch.float32).reshape(2, 3).requires_grad_()
    assert from_python(t * 1) == Array((2, 3), (0.0, 1.0, 2.0, 3.0, 4.0, 5.0), "float32", "cpu")
    assert from_python(torch.nn.Parameter(torch.ones(2))) == Array((2,), (1.0, 1.0), "float32", "cpu")
    assert from_python(np.eye(2)) == Array((2, 2), (1.0, 0.0, 0.0, 1.0), "float64", "cpu")
    assert from_python(torch.tensor(2.0, dtype=torch.float64)) == Array((), (2.0,), "float64", "cpu")


SAMPLES = [
    Number(1.5), Number(math.inf), Flag(False), Text("x"), Nothing(),
    Seq((Number(1.0), Seq((), "tuple")), "list"),
    Array((2,), (1.0, 2.0), "float64", "cpu"),
    Opaque("Node", "Node(1)"),
    ErrorInfo("ValueError", "bad", Where(3, "f", "raise ValueError('bad')")),
    ErrorInfo("SystemExit", "sys.exit(0) was called"),
]


@pytest.mark.parametrize("value", SAMPLES, ids=repr)
def test_round_trip_through_json(value: object) -> None:
    data = json.loads(json.dumps(to_data(value)))  # type: ignore[arg-type]
    assert from_data(data) == value


def test_huge_integers_in_a_reply_become_infinities() -> None:
    assert from_data({"t": "num", "v": -(10**400)}) == Number(-math.inf)


def test_nan_survives_and_compares_as_nan() -> None:
    back = from_data(json.loads(json.dumps(to_data(Number(math.nan)))))
    assert isinstance(back, Number) and math.isnan(back.value)


@pytest.mark.parametrize(
    "data",
    [
        [1, 2],
        {"t": "num"},
        {"t": "num", "v": "1.5"},
        {"t": "num", "v": True},
        {"t": "num", "v": 1.5, "extra": 1},
        {"t": "bool", "v": 1},
        {"t": "array", "shape": [2, 2], "v": [1.0], "dtype": "f", "device": "cpu"},
        {"t": "array", "shape": [-1], "v": [], "dtype": "f", "device": "cpu"},
        {"t": "list", "v": {"0": 1}},
        {"t": "pickle", "v": "gASV"},
        {"t": "error", "type": "E", "message": "m", "where": {"line": "3", "function": "f", "text": ""}},
    ],
)
def test_malformed_replies_are_rejected(data: object) -> None:
    with pytest.raises(BadReply):
        from_data(data)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5)
    | st.sampled_from(["t", "num", "v", "list", "array", "shape", "error", "where"]),
    lambda children: st.lists(children, max_size=3)
    | st.dictionaries(st.sampled_from(["t", "v", "shape", "dtype", "device", "type", "message", "where"]),
                      children, max_size=5),
    max_leaves=12,
)


@settings(max_examples=500, deadline=None)
@given(json_values)
def test_any_json_either_parses_to_a_value_or_is_rejected_cleanly(data: object) -> None:
    try:
        value = from_data(data)
    except BadReply:
        return
    assert from_data(json.loads(json.dumps(to_data(value)))) == value
