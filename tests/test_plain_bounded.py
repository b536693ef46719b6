"""A got value in a report keeps what a student reads: whole where it is no bigger than the expected value
(or 64 numbers), else its first numbers, shape and size; never megabytes, however it nests."""

from __future__ import annotations

import json

from grader.core.values import Array, Number, Seq, Text
from grader.judge.plain import KEEP, PREFIX, plain, plain_got

BIG = Seq(tuple(Number(0.5) for _ in range(150_000)))


def test_a_value_as_big_as_the_expected_one_is_kept_whole() -> None:
    want = Array((100,), tuple(float(i) for i in range(100)))
    got = Array((100,), tuple(float(-i) for i in range(100)))
    assert plain_got(got, want) == plain(got)
    small = Seq(tuple(Number(i) for i in range(KEEP)))
    assert plain_got(small, Number(1.0)) == plain(small)


def test_a_huge_list_or_tensor_is_its_prefix_shape_and_size() -> None:
    assert plain_got(BIG, Number(1.0)) == {"truncated": True, "kind": "list", "shape": [150_000], "size": 150_000,
                                           "prefix": [0.5] * PREFIX}
    tensor = Array((300, 500), tuple(float(i) for i in range(150_000)))
    assert plain_got(tensor, Number(1.0)) == {"truncated": True, "kind": "tensor", "shape": [300, 500],
                                              "size": 150_000, "prefix": [float(i) for i in range(PREFIX)]}


def test_nesting_and_long_text_do_not_get_past_the_cap() -> None:
    tree = Seq(tuple(Seq(tuple(Seq(tuple(Number(1.0) for _ in range(16))) for _ in range(16))) for _ in range(16)))
    texts = Seq(tuple(Text("x" * 4000) for _ in range(200)))
    empties = Seq(tuple(Seq(()) for _ in range(150_000)))
    for value in (tree, texts, empties):
        cut = plain_got(value, Number(1.0))
        assert cut["truncated"] and len(json.dumps(cut)) < 2_000, cut
    assert plain_got(tree, Number(1.0))["shape"] == [16, 16, 16]
