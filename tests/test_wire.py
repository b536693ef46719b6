"""The messages between the grading process, a zygote and its children (grader.run.wire): each goes
through its JSON and back unchanged, and a message that is not what the protocol says is refused,
whichever side reads it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from grader.run.wire import (
    MAX_REQUEST,
    Ended,
    Forked,
    GraphRequest,
    GroupRequest,
    Hello,
    MemoryFiles,
    ProbeRequest,
    Request,
    RunHeader,
    SecondPart,
    SourceFile,
    WireError,
    ZygoteConfig,
    encode,
    frame,
    frame_size,
    second_part_fields,
    zygote_word,
)

TENSOR = {"tensor": {"shape": [2], "data": [1.5, -2], "dtype": "float64", "requires_grad": True}}
PROBE = ProbeRequest(name="grad", code="y = a * b\ny.backward()", observe=(("a.grad", "a.grad"),),
                     inputs={"a": 2.0, "b": 3, "t": TENSOR}, torch_seed=7, uses=("Node",))
GRAPH = GraphRequest(node="needle.autograd.Value", op="op", inputs="inputs", realize="realize_cached_data",
                     lazy=None)
GROUP = GroupRequest(arrays="none", package=False, defines=(("Node", "class"),), autograd=None, forbid_ops=(),
                     forbid_complex=False, graph=None, probes=(PROBE,))
REQUEST = Request(filename="mul.py", exercise="node-mul", cells=(SourceFile("mul.py", "x = 1"),),
                  siblings=(SourceFile("helpers.py", "y = 2"),),
                  package=(SourceFile("python/needle/ops.py", "z = 3"),), import_paths=("python",),
                  keep_going=False, device="cpu", two_parts=True, allowed=("math",), forbidden=("ctypes",),
                  groups=(GROUP, GroupRequest(arrays="numpy", package=True, defines=(("needle.ops.EWiseMul", "class"),),
                                              autograd=None, forbid_ops=(), forbid_complex=False, graph=GRAPH,
                                              probes=())))
MESSAGES: list[Any] = [
    PROBE,
    GRAPH,
    GROUP,
    REQUEST,
    SecondPart(((0, (PROBE,)),)),
    MemoryFiles(2, 5, -1),
    ZygoteConfig(sock=3, memory=MemoryFiles(1, 5, 6), target="m:f", allowed=None, forbidden=(),
                 mode="landlock", level="landlock", isolation="words", scratch="/tmp", keep=("/tmp/x",)),
    Hello(level="full", mode="root-namespaces", isolation="words"),
    RunHeader(run=1, uid=None, files_as_root=False, cpu=11, memory_cap=0, group_memory=-1,
              file_bytes=16, nproc=64),
]


def _through(message: Any) -> Any:
    """The message as the other side reads it: its bytes, parsed, then checked."""
    return type(message).from_json(json.loads(encode(message)))


@pytest.mark.parametrize("message", MESSAGES, ids=lambda m: type(m).__name__)
def test_a_message_goes_through_its_json_unchanged(message: Any) -> None:
    assert _through(message) == message


@pytest.mark.parametrize("word", [Forked(3, 4242, True), Ended(3, 256)], ids=["forked", "ended"])
def test_a_zygote_word_is_read_as_what_it_is(word: Forked | Ended) -> None:
    assert zygote_word(json.loads(encode(word))) == word


def _json(message: Any) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(encode(message))
    return found


@pytest.mark.parametrize(("change", "why"), [
    (lambda d: d.update(device=1), "device is not text"),
    (lambda d: d.update(two_parts=1), "two_parts is not true or false"),
    (lambda d: d.update(allowed=["math", 2]), "allowed holds something that is not text"),
    (lambda d: d.pop("siblings"), "the request has the keys"),
    (lambda d: d.update(extra=True), "the request has the keys"),
    (lambda d: d["groups"][0]["probes"][0].update(torch_seed=True), "torch_seed is not an integer"),
    (lambda d: d["groups"][0]["probes"][0]["inputs"].update(a="2"), "neither a number nor a tensor"),
    (lambda d: d["groups"][0]["probes"][0]["inputs"]["t"]["tensor"].update(data=[1, None]),
     "a tensor's data holds something that is not a number"),
    (lambda d: d["groups"][0].update(defines={"Node": 1}), "defines holds something that is not text"),
    (lambda d: d["groups"][0].update(arrays="tensor"), "arrays is 'tensor', not one of"),
], ids=["device", "flag", "allowed", "missing", "extra", "bool-for-int", "input", "tensor", "defines", "arrays"])
def test_a_request_that_is_not_what_the_protocol_says_is_refused(change: Any, why: str) -> None:
    data = _json(REQUEST)
    change(data)
    with pytest.raises(WireError, match=why):
        Request.from_json(data)


def test_a_zygote_word_of_the_wrong_shape_is_refused() -> None:
    for data in ({"run": 1, "pid": 2}, {"run": "1", "status": 0}, [1, 2], {"run": 1, "status": 0, "x": 1}):
        with pytest.raises(WireError):
            zygote_word(data)
    with pytest.raises(WireError, match="level is not text"):
        Hello.from_json({"level": None, "mode": "none", "isolation": ""})


def _plain(value: object) -> bool:
    """Whether `value` is built of the interpreter's own types alone."""
    if isinstance(value, (tuple, list)):
        return type(value) in (tuple, list) and all(_plain(v) for v in value)
    if isinstance(value, dict):
        return type(value) is dict and all(_plain(k) and _plain(v) for k, v in value.items())
    return type(value) in (str, int, float, bool, type(None))


def test_the_child_reads_a_second_part_into_plain_values_alone() -> None:
    """Read after the submission has run: nothing of the grader's classes is made (grader.run.child.warm)."""
    part = SecondPart(((0, (PROBE,)), (2, ())))
    found = second_part_fields(json.loads(encode(part)))
    assert _plain(found)
    assert found == [(0, [(PROBE.name, PROBE.code, PROBE.observe, PROBE.inputs, 7, ("Node",))]), (2, [])]


def test_a_frame_holds_its_size_and_a_size_is_read_at_most_the_cap() -> None:
    framed = frame(b"abc")
    assert frame_size(framed[:8]) == 3 and framed[8:] == b"abc"
    assert frame_size((MAX_REQUEST * 4).to_bytes(8, "big")) == MAX_REQUEST
