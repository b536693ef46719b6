"""One run's exchange with its child: feed it the request, collect its reply and output under
their caps, keep the deadline, and learn how it ended (grader.run.zygote starts the child)."""

from __future__ import annotations

import json
import os
import selectors
import signal
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from grader.run.confine import cgroups
from grader.run.wire import Ended, Forked, zygote_word

MIB = 1024 * 1024
#: a status no wait() returns: the zygote went away before saying
_UNKNOWN = -1
#: how often a run's cgroup is asked whether the kernel killed one of its processes
_WATCH_SECONDS = 0.2


@dataclass(frozen=True, slots=True, kw_only=True)
class Limits:
    """What one run of student code may use."""

    wall_seconds: float = 10.0
    #: address space on top of what the zygote already maps (torch alone maps ~600 MB); 0: no cap
    memory_mb: int = 2048
    output_bytes: int = 64 * 1024
    reply_bytes: int = 8 * MIB
    file_bytes: int = 16 * MIB

    @property
    def cpu_seconds(self) -> int:
        return int(self.wall_seconds) + 1


@dataclass(frozen=True, slots=True, kw_only=True)
class Exchange:
    """Everything that came back from one run, before any of it is interpreted."""

    reply: bytes
    output: bytes
    output_truncated: bool
    reply_overflow: bool
    timed_out: bool
    #: raw wait status (os.waitstatus_to_exitcode reads it), or None if the zygote never said
    status: int | None
    seconds: float
    #: the kernel killed one of the run's processes for the memory of them all (its cgroup), and
    #: so the run
    memory_exceeded: bool = False
    #: the limits that held per process only, not for the run as a whole: "memory", "processes"
    weaker_limits: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Ends:
    """One run's ends in the grading process: the zygote's socket and the run's number on it,
    and the three pipes to its child."""

    sock: socket.socket
    run: int
    request_fd: int
    reply_fd: int
    output_fd: int


@dataclass(frozen=True, slots=True)
class Counted:
    """How a run's processes are counted together: the zygote's cgroups that hold them (None:
    none), the kernel's OOM kills there before the run started, and the limits that hold per
    process only."""

    group: cgroups.ZygoteGroup | None = None
    oom_kills: int = 0
    weaker: tuple[str, ...] = ()


#: when a run must end, given its reply so far and the time now (monotonic)
Deadline = Callable[[bytearray, float], float]
#: a two-part run's turn, once its child has said all of the first part
#: (grader.run.sandbox.TwoPartRun): the second part's request, and the deadline from then on
TwoParts = Callable[[Exchange], tuple[bytes, Deadline]]


class Running:
    """A child at work: `wait()` collects its reply, its output and how it ended."""

    def __init__(
        self,
        ends: Ends,
        request: bytes,
        limits: Limits,
        *,
        finished: Callable[[bytes], bool],
        deadline: Deadline | None = None,
        counted: Counted = Counted(),
        two_parts: TwoParts | None = None,
    ) -> None:
        self._sock, self._run = ends.sock, ends.run
        self._limits, self._finished = limits, finished
        #: the zygote's cgroups, which hold this run's processes, and their OOM kills before it
        self._group, self._oom_kills = counted.group, counted.oom_kills
        self._weaker = counted.weaker
        self._memory_exceeded = False
        self._deadline = deadline
        self._request_fd, self._request = ends.request_fd, memoryview(request)
        self._reply_fd, self._output_fd = ends.reply_fd, ends.output_fd
        self._reply, self._output = bytearray(), bytearray()
        self._output_total = 0
        self._output_kept = True
        self._reply_overflow = False
        self._pidfd: int | None = None
        #: a two-part run: what to send once the child has said all of the first part
        self._two_parts = two_parts
        #: the first part, as the child had said it when it finished it: None until then
        self.first_part: Exchange | None = None
        #: while collecting: the child's status, its pipes still open, when it must end by
        self._status: int | None = None
        self._open = 2
        self._until = 0.0
        self._timed_out = False

    def wait(self) -> Exchange:
        try:
            started = self._forked()
        except (ConnectionError, OSError, ValueError, KeyError, TypeError):
            started = False  # the zygote went away before forking: nobody ran
        if not started:
            for fd in (self._request_fd, self._reply_fd, self._output_fd):
                os.close(fd)
            return Exchange(
                reply=b"",
                output=b"",
                output_truncated=False,
                reply_overflow=False,
                timed_out=False,
                status=None,
                seconds=0.0,
                weaker_limits=self._weaker,
            )
        self._killable()
        try:
            return self._collect()
        finally:
            if self._pidfd is not None:
                os.close(self._pidfd)

    def _killable(self) -> None:
        """The child, born in its zygote's cgroups, made the OOM killer's first choice there: it
        waits for its request, so none of the submission's code has run yet."""
        if self._group is None:
            return
        pid = pid_of(self._pidfd) if self._pidfd is not None else None
        try:  # alive (so its pid is still its own) when changed
            alive = self._pidfd is not None
            if self._pidfd is not None:
                signal.pidfd_send_signal(self._pidfd, 0)
        except OSError:
            alive = False
        if pid is None or not alive or not cgroups.first_to_kill(pid):
            # its processes are still counted, but the kernel might choose the zygote
            self._uncounted()

    def _uncounted(self) -> None:
        self._group = None
        self._weaker = tuple(cgroups.NAMES.values())

    def _exceeded(self) -> bool:
        return self._group is not None and self._group.oom_kills() > self._oom_kills

    def _watch(self, now: float, last: float) -> float:
        """Stop the run once the kernel has killed one of its processes for their memory
        together."""
        if self._group is None or now - last < _WATCH_SECONDS or self._memory_exceeded:
            return last
        if self._exceeded():
            self._memory_exceeded = True
            if self._pidfd is not None:  # the zygote then kills whatever the child left
                send_signal(self._pidfd, signal.SIGKILL)
        return now

    def _collect(self) -> Exchange:
        started = time.monotonic()
        if self._deadline is None:
            self._until = started + self._limits.wall_seconds
        else:
            self._until = self._deadline(self._reply, started)
        selector = selectors.DefaultSelector()
        for fd in (self._reply_fd, self._output_fd):
            os.set_blocking(fd, False)
            selector.register(fd, selectors.EVENT_READ)
        os.set_blocking(self._request_fd, False)
        selector.register(self._request_fd, selectors.EVENT_WRITE)
        selector.register(self._sock, selectors.EVENT_READ)
        try:
            self._loop(selector, started)
        finally:
            self._end(selector)
        return self._exchange(started)

    def _loop(self, selector: selectors.BaseSelector, started: float) -> None:
        """Feed and read the child until it has ended and its pipes are closed, it has said all
        (its pipes closed) while on its way out, or its time is up."""
        watched = started
        while (self._status is None or self._open) and not self._reply_overflow:
            if not self._open and self._finished(bytes(self._reply)):
                break  # all said, and the child is on its way out: go on meanwhile
            watched = self._watch(time.monotonic(), watched)
            timeout = self._until - time.monotonic()
            if self._status is not None:
                timeout = min(timeout, 0.5)  # exited: only leftovers could hold the pipes open
            if self._group is not None:
                timeout = min(timeout, _WATCH_SECONDS)
            if timeout <= 0:
                self._timed_out = self._status is None
                break
            for key, _ in selector.select(timeout):
                self._ready(key, selector, started)

    def _ready(
        self, key: selectors.SelectorKey, selector: selectors.BaseSelector, started: float
    ) -> None:
        """One end is ready: the zygote's word, room in the request's pipe, or the child's bytes."""
        if key.fileobj is self._sock:
            self._status = self._ended_now()
            selector.unregister(self._sock)
            if self._status is None:  # the zygote is gone: nobody will say how the child ended
                self._status = _UNKNOWN
        elif key.fd == self._request_fd:
            if not self._send_some():
                selector.unregister(self._request_fd)
                if self._two_parts is None or self.first_part is not None:
                    self._close_request()  # a request in two parts stays open for its second
        elif self._take(int(key.fd)) is False:
            selector.unregister(key.fd)
            self._open -= 1
        elif key.fd == self._reply_fd and self._crossing():
            self._until = self._second_part(started, selector)
        elif key.fd == self._reply_fd and self._deadline is not None:
            self._until = self._deadline(self._reply, time.monotonic())

    def _crossing(self) -> bool:
        """Whether the child has just said all of a two-part run's first part."""
        if self._two_parts is None or self.first_part is not None:
            return False
        return self._finished(bytes(self._reply))

    def _end(self, selector: selectors.BaseSelector) -> None:
        """The child killed, its status learnt, the last of its bytes read, its ends closed."""
        if self._pidfd is not None:  # the zygote then kills whatever the child left
            send_signal(self._pidfd, signal.SIGKILL)
        if self._status is None and not (self._open == 0 and self._finished(bytes(self._reply))):
            self._status = self._ended_in_time()
        if self._status == _UNKNOWN:
            self._status = None
        for fd in (self._reply_fd, self._output_fd):
            while self._take(fd):  # what the child wrote just before the end
                pass
        selector.close()
        self._close_request()
        os.close(self._reply_fd)
        os.close(self._output_fd)

    def _exchange(self, started: float) -> Exchange:
        memory = self._memory_exceeded or self._exceeded()
        return Exchange(
            reply=bytes(self._reply),
            output=bytes(self._output),
            output_truncated=self._output_total > len(self._output),
            reply_overflow=self._reply_overflow,
            timed_out=self._timed_out and not memory,
            status=self._status,
            seconds=time.monotonic() - started,
            memory_exceeded=memory,
            weaker_limits=self._weaker,
        )

    def _second_part(self, started: float, selector: selectors.BaseSelector) -> float:
        """The child has said all of the first part: take it as it stands, output up to now
        included, and only then send the second part. Nothing the child writes from here on
        reaches the first part, and nothing it writes to its output from here on is kept: the
        second part is the hidden checks (grader.judge.hidden_runs), whose inputs it has only
        now."""
        while self._take(self._output_fd):  # what it wrote before its last word
            pass
        now = time.monotonic()
        self.first_part = Exchange(
            reply=bytes(self._reply),
            output=bytes(self._output),
            output_truncated=self._output_total > len(self._output),
            reply_overflow=False,
            timed_out=False,
            status=0,
            seconds=now - started,
            memory_exceeded=self._exceeded(),
            weaker_limits=self._weaker,
        )
        self._output_kept, self._output, self._output_total = False, bytearray(), 0
        assert self._two_parts is not None
        request, self._deadline = self._two_parts(self.first_part)
        self._request = memoryview(bytes(self._request) + request)
        if self._request_fd >= 0:
            try:
                selector.register(self._request_fd, selectors.EVENT_WRITE)
            except KeyError:  # still sending the first part: the second follows it
                pass
        return self._deadline(self._reply, now)

    def _send_some(self) -> bool:
        """Write what the pipe takes of the request; False once it is all sent, or the child is
        gone."""
        try:
            written = os.write(self._request_fd, self._request)
        except BlockingIOError:
            return True
        except OSError:  # the child died before reading; its status says why
            return False
        self._request = self._request[written:]
        return bool(self._request)

    def _close_request(self) -> None:
        if self._request_fd >= 0:
            os.close(self._request_fd)
            self._request_fd = -1

    def _take(self, fd: int) -> bool | None:
        """Read what waits on `fd` into the capped buffers: True if read, None if none yet, False
        at its end."""
        try:
            chunk = os.read(fd, 1 << 16)
        except BlockingIOError:
            return None
        if not chunk:
            return False
        if fd == self._reply_fd:
            self._reply += chunk
            if len(self._reply) > self._limits.reply_bytes:
                self._reply_overflow = True
                del self._reply[self._limits.reply_bytes :]
        elif self._output_kept:
            self._output_total += len(chunk)
            room = self._limits.output_bytes - len(self._output)
            if room > 0:
                self._output += chunk[:room]
        return True

    def _word(self) -> tuple[Forked | Ended, list[int]]:
        """The zygote's next word about this run, and the descriptors that came with it."""
        while True:
            data, fds = receive(self._sock)
            word = zygote_word(json.loads(data))
            if word.run == self._run:
                return word, fds
            for fd in fds:  # about an earlier run, which finished without it
                os.close(fd)

    def _forked(self) -> bool:
        """The zygote's word that it forked this run's child, with the child's pidfd."""
        word, fds = self._word()
        self._pidfd = fds[0] if fds else None
        if not (isinstance(word, Forked) and word.limited):  # it could not set the memory limit
            self._uncounted()
        return True

    def _ended_now(self) -> int | None:
        """The child's wait status, as the zygote says it; None if it cannot."""
        try:
            word, _ = self._word()
        except (ConnectionError, OSError, ValueError, KeyError, TypeError):
            return None
        if not isinstance(word, Ended):  # the zygote said a run started twice
            return None
        return word.status

    def _ended_in_time(self) -> int | None:
        self._sock.settimeout(5.0)
        try:
            return self._ended_now()
        finally:
            self._sock.settimeout(None)


def receive(sock: socket.socket) -> tuple[bytes, list[int]]:
    data, fds, _, _ = socket.recv_fds(sock, 1 << 16, 2)
    if not data:
        raise ConnectionError("the zygote has exited")
    return data, fds


def send_signal(pidfd: int, number: int) -> None:
    try:
        signal.pidfd_send_signal(pidfd, number)
    except ProcessLookupError:
        pass


def pid_of(pidfd: int) -> int | None:
    """The pid a pidfd refers to, as this process sees it."""
    try:
        for line in Path(f"/proc/self/fdinfo/{pidfd}").read_text().splitlines():
            if line.startswith("Pid:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return None
