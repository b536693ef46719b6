"""The grading process's side of a zygote run (grader.run.running.Running), without forking: this test plays the zygote.

A run is three pipes (request, reply, output) and the zygote's socket, on which it says, for its run
number, that the child started and later how it ended (grader.run.child.zygote_main sends both). Here the test
writes those messages and the child's bytes itself, so the capping of the reply and the output, the
deadline, and the skipping of a late word about an earlier run are checked in a fraction of a second.
"""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from grader.run.running import Ends, Limits, Running
from grader.run.wire import Ended, Forked, encode

EXITED_0, EXITED_3 = 0, 3 << 8  # raw wait statuses, as os.waitpid gives them


@dataclass
class Pipes:
    """One run's ends: those Running holds (ours), and those a child would (theirs)."""

    sock: socket.socket
    zygote: socket.socket
    request_r: int
    request_w: int
    reply_r: int
    reply_w: int
    output_r: int
    output_w: int

    def say(self, run: int, *, pid: int | None = None, status: int | None = None) -> None:
        """What grader.run.child.zygote_main sends: `Forked` once forked, `Ended` at the end."""
        word = Forked(run, pid, False) if pid is not None else Ended(run, status or 0)
        self.zygote.send(encode(word))

    def child_writes(self, reply: bytes = b"", output: bytes = b"", *, close: bool = True) -> None:
        if reply:
            os.write(self.reply_w, reply)
        if output:
            os.write(self.output_w, output)
        if close:
            self.close_child()

    def close_child(self) -> None:
        for fd in (self.reply_w, self.output_w):
            if fd >= 0:
                os.close(fd)
        self.reply_w = self.output_w = -1

    def running(self, run: int = 1, request: bytes = b"{}\n", **limits: float) -> Running:
        ends = Ends(self.sock, run, self.request_w, self.reply_r, self.output_r)
        return Running(ends, request, Limits(**limits),  # type: ignore[arg-type]
                       finished=lambda reply: reply.endswith(b"END\n"))


@pytest.fixture
def pipes() -> Iterator[Pipes]:
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    request, reply, output = os.pipe(), os.pipe(), os.pipe()
    made = Pipes(ours, theirs, *request, *reply, *output)
    yield made
    made.close_child()
    os.close(made.request_r)
    ours.close()
    theirs.close()


def test_a_run_collects_the_reply_the_output_and_the_status(pipes: Pipes) -> None:
    pipes.say(1, pid=4242)
    pipes.child_writes(b'{"ok": 1}\nEND\n', b"hello\n")
    pipes.say(1, status=EXITED_3)
    exchange = pipes.running(request=b"the request\n").wait()
    assert (exchange.reply, exchange.output, exchange.status) == (b'{"ok": 1}\nEND\n', b"hello\n", EXITED_3)
    assert not (exchange.timed_out or exchange.output_truncated or exchange.reply_overflow)
    # the child was handed the whole request, and then the end of it
    assert os.read(pipes.request_r, 100) == b"the request\n" and os.read(pipes.request_r, 100) == b""


def test_output_past_its_cap_is_cut_and_said_to_be(pipes: Pipes) -> None:
    pipes.say(1, pid=1)
    pipes.child_writes(b"END\n", b"x" * 1000)
    pipes.say(1, status=EXITED_0)
    exchange = pipes.running(output_bytes=100).wait()
    assert exchange.output == b"x" * 100 and exchange.output_truncated
    assert exchange.reply == b"END\n" and not exchange.reply_overflow


def test_a_reply_past_its_cap_stops_the_run_and_keeps_only_the_cap(pipes: Pipes) -> None:
    pipes.say(1, pid=1)
    pipes.child_writes(b"r" * 5000, close=False)  # the child goes on: the grader must not wait for its end
    threading.Timer(0.2, pipes.say, args=(1,), kwargs={"status": 9}).start()  # the zygote reports the kill
    exchange = pipes.running(reply_bytes=1024, wall_seconds=30).wait()
    assert exchange.reply_overflow and exchange.reply == b"r" * 1024
    assert exchange.status == 9 and not exchange.timed_out


def test_a_late_word_about_an_earlier_run_is_not_taken_for_this_one(pipes: Pipes) -> None:
    stale_r, stale_w = os.pipe()
    # run 1 ended after its reply was read; its status, and a stray fd, arrive while run 2 starts
    socket.send_fds(pipes.zygote, [encode(Ended(1, EXITED_3))], [stale_r])
    os.close(stale_r)
    pipes.say(2, pid=7)
    pipes.child_writes(b"END\n")
    pipes.say(2, status=EXITED_0)
    exchange = pipes.running(run=2).wait()
    assert exchange.status == EXITED_0 and exchange.reply == b"END\n"
    with pytest.raises(BrokenPipeError):  # the stray fd was closed, not kept open in the grading process
        os.write(stale_w, b"x")
    os.close(stale_w)


def test_a_zygote_gone_before_the_child_started_means_nobody_ran(pipes: Pipes) -> None:
    pipes.zygote.close()
    exchange = pipes.running().wait()
    assert (exchange.reply, exchange.output, exchange.status, exchange.timed_out) == (b"", b"", None, False)
    with pytest.raises(BrokenPipeError):  # the run's pipes are closed on this side too
        os.write(pipes.reply_w, b"x")


def test_a_child_that_says_nothing_runs_out_of_time(pipes: Pipes) -> None:
    pipes.say(1, pid=1)
    pipes.child_writes(b"partial", close=False)
    # the zygote kills the child at the deadline and says so: the status follows the deadline
    threading.Timer(0.4, pipes.say, args=(1,), kwargs={"status": 9}).start()
    exchange = pipes.running(wall_seconds=0.2).wait()
    assert exchange.timed_out and exchange.reply == b"partial"
    assert exchange.status == 9 and exchange.seconds >= 0.2


def test_a_reply_said_in_full_ends_the_run_without_waiting_for_its_status(pipes: Pipes) -> None:
    pipes.say(1, pid=1)
    pipes.child_writes(b"all of it\nEND\n")
    # the status comes late: the child is on its way out, and the grader goes on meanwhile
    late = threading.Timer(3.0, pipes.say, args=(1,), kwargs={"status": 9})
    late.start()
    try:
        exchange = pipes.running(wall_seconds=30).wait()
    finally:
        late.cancel()
    assert exchange.reply == b"all of it\nEND\n" and exchange.status is None and not exchange.timed_out


def test_the_cpu_limit_rounds_the_wall_clock_limit_up() -> None:
    assert Limits(wall_seconds=5.0).cpu_seconds == 6 and Limits(wall_seconds=2.5).cpu_seconds == 3
