"""The grading process's side of a zygote: start one, confined, and run children through it with capped pipes.

A zygote is a fresh interpreter that imports only the child's side of the grader (and torch or numpy,
where allowed). It is set up by a process forked from this one that confines itself (grader.isolate)
and then executes the interpreter, so it holds none of this process's memory (the reference engine,
exercises, expected values). For each run this process hands it three pipe ends over a Unix socket;
the zygote forks a child that reads its request and writes its reply on them, and sends back the
child's pid with a pidfd, then its exit status. This process alone reads the replies, keeps the
deadline and kills the child (through the pidfd: the child's pid means nothing in its namespace).
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import socket
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from grader import isolate, tree
from grader.policy import ImportPolicy
from grader.zygote_main import ENTRY, Hello, RunHeader

MIB = 1024 * 1024
_UNKNOWN = -1  # a status no wait() returns: the zygote went away before saying

#: what of the grader's environment a zygote starts with: what Python, torch and CUDA need to load,
#: never the rest (CI tokens, keys), which a child could otherwise read back from its environment.
#: Names, and prefixes of names: a prefix such as HOME would let HOMEBREW_GITHUB_API_TOKEN through.
_ZYGOTE_NAMES = frozenset({"PATH", "HOME", "LANG", "TZ", "LD_LIBRARY_PATH"})
_ZYGOTE_PREFIXES = ("LC_", "CUDA_", "NVIDIA_", "TORCH_", "OMP_", "MKL_")


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


class ZygoteFailed(OSError):
    """The zygote could not be set up in the mode asked for."""


class Zygote:
    """A warm, confined process that forks sandboxed children on request; one run at a time."""

    def __init__(self, policy: ImportPolicy, mode: isolate.Mode, *, hide: tuple[str, ...] = (),
                 target: str = "grader.child:serve") -> None:
        self.policy, self.mode, self._hide, self._target = policy, mode, hide, target
        self._runs = 0  # numbers each run, so that a late word about an earlier one is never taken for it
        self._sock: socket.socket | None = None
        self._pid: int | None = None
        self._pidfd: int | None = None  # the zygote proper (the PID namespace's init, where there is one)
        self._scratch: str | None = None
        self.hello: Hello | None = None

    @property
    def started(self) -> bool:
        return self._sock is not None

    def start(self) -> None:
        """Fork, confine, exec: the zygote warms up while this process goes on."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        plan = tree.layout(self.policy, self._hide)
        self._scratch = tempfile.mkdtemp(prefix="autograd-grader-runs-") if not self.mode.pid_namespace else "/tmp"
        if self._scratch != "/tmp":
            os.chmod(self._scratch, 0o711)
        config = {"sock": theirs.fileno(), "target": self._target, "policy": asdict(self.policy) | {
            "allowed": sorted(self.policy.allowed) if self.policy.allowed is not None else None,
            "forbidden": sorted(self.policy.forbidden)}, "mode": self.mode.kind, "level": self.mode.level,
            "isolation": self.mode.describe(), "scratch": self._scratch,
            "keep": list(tree.kept_in_scratch(plan))}
        env = {name: value for name, value in os.environ.items()
               if name in _ZYGOTE_NAMES or name.startswith(_ZYGOTE_PREFIXES)}
        # The grader's child side; for torch exercises, packages the grading process was given by PYTHONPATH too.
        extra = os.environ.get("PYTHONPATH", "") if self.policy.allows_everything else ""
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(Path(__file__).resolve().parent.parent), extra]))
        env["PYTHONNOUSERSITE"] = "1"
        argv = [sys.executable, "-B", "-c", ENTRY, json.dumps(config)]
        failed_r, failed_w = os.pipe2(os.O_CLOEXEC)
        up_r, up_w = os.pipe()
        down_r, down_w = os.pipe()
        parent = os.getpid()
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the process that becomes the zygote
            try:
                os.close(failed_r)
                isolate.confine_zygote(self.mode, plan, parent, self._scratch, (up_w, down_r))
                os.set_inheritable(theirs.fileno(), True)
                os.closerange(3, theirs.fileno())
                os.closerange(theirs.fileno() + 1, failed_w)
                os.closerange(failed_w + 1, 1 << 16)
                os.execve(sys.executable, argv, env)
            except BaseException as exc:  # noqa: BLE001 - say why, for the grading process to raise
                os.write(failed_w, f"{type(exc).__name__}: {exc}".encode()[:1000])
            os._exit(70)
        for fd in (failed_w, up_w, down_r):
            os.close(fd)
        theirs.close()
        try:
            if self.mode.kind == "mapped-namespaces":
                if os.read(up_r, 1) == b"u":
                    from grader import syscalls

                    uids, gids = isolate.mapped_ids()
                    os.write(down_w, b"m" if syscalls.map_ids(pid, uids, gids, deny_setgroups=False) else b"x")
            why = os.read(failed_r, 1000)  # nothing once the exec closed it: set up
        finally:
            for fd in (failed_r, up_r, down_w):
                os.close(fd)
        if why:
            os.waitpid(pid, 0)
            ours.close()
            raise ZygoteFailed(f"could not confine a zygote ({self.mode.kind}): {why.decode(errors='replace')}")
        self._sock, self._pid = ours, pid

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()  # the zygote reads end of file, and its PID namespace dies with it
            self._sock = None
        if self._pidfd is not None:
            _signal(self._pidfd, signal.SIGKILL)
            os.close(self._pidfd)
            self._pidfd = None
        if self._pid is not None:
            try:
                os.kill(self._pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(self._pid, 0)
            self._pid = None
        if self._scratch and self._scratch != "/tmp":
            import shutil

            shutil.rmtree(self._scratch, ignore_errors=True)

    def alive(self) -> bool:
        if self._pid is None:
            return False
        try:
            return os.waitpid(self._pid, os.WNOHANG) == (0, 0)
        except ChildProcessError:
            return False

    def launch(self, request: bytes, limits: Limits, *, finished: Callable[[bytes], bool],
               deadline: Deadline | None = None) -> Running:
        """Fork a child for one run and hand it `request`; `finished(reply)` says when it has said all, and
        `deadline(reply, now)` when it must have (default: the wall-clock limit from its start)."""
        if self._sock is None:
            raise RuntimeError("the zygote is not running")
        if not self.alive():  # a submission may kill what it can reach: start again
            self.close()
            self.start()
        assert self._sock is not None
        self._greeted()
        req_r, req_w = os.pipe()
        rep_r, rep_w = os.pipe()
        out_r, out_w = os.pipe()
        self._runs += 1
        header = RunHeader(run=self._runs, uid=isolate.run_uid() if self.mode.fresh_uids else None,
                           cpu=limits.cpu_seconds, memory_cap=self._memory_cap(limits), file_bytes=limits.file_bytes,
                           nproc=self._nproc())
        try:
            socket.send_fds(self._sock, [json.dumps(asdict(header)).encode()], [req_r, rep_w, out_w])
        finally:
            for fd in (req_r, rep_w, out_w):
                os.close(fd)
        return Running(self._sock, self._runs, req_w, request, rep_r, out_r, limits, finished, deadline)

    def _greeted(self) -> None:
        """The zygote's first word: how it is confined (trusted: no student code ever ran in it)."""
        if self.hello is not None:
            return
        assert self._sock is not None
        data, fds = _recv(self._sock)
        self.hello = Hello(**json.loads(data)["hello"])
        self._pidfd = fds[0] if fds else None

    def _memory_cap(self, limits: Limits) -> int:
        """RLIMIT_AS counts what the zygote already maps, so the budget goes on top of its size now."""
        if limits.memory_mb <= 0 or self._pidfd is None:
            return 0
        pid = _pid_of(self._pidfd)
        try:
            for line in Path(f"/proc/{pid}/status").read_bytes().splitlines():
                if line.startswith(b"VmSize:"):
                    return int(line.split()[1]) * 1024 + limits.memory_mb * MIB
        except (OSError, ValueError):
            pass
        return 0  # not readable: the wall-clock and CPU limits still hold

    def _nproc(self) -> int:
        """The process limit: a fresh uid counts only its own; the grader's user counts all of its."""
        if self.mode.fresh_uids:
            return isolate.MAX_PROCESSES
        return isolate.processes_of(os.getuid()) + isolate.MAX_PROCESSES


#: when a run must end, given its reply so far and the time now (monotonic)
Deadline = Callable[[bytearray, float], float]


class Running:
    """A child at work: `wait()` collects its reply, its output and how it ended."""

    def __init__(self, sock: socket.socket, run: int, request_fd: int, request: bytes, reply_fd: int,
                 output_fd: int, limits: Limits, finished: Callable[[bytes], bool],
                 deadline: Deadline | None = None) -> None:
        self._sock, self._run, self._limits, self._finished = sock, run, limits, finished
        self._deadline = deadline
        self._request_fd, self._request = request_fd, memoryview(request)
        self._reply_fd, self._output_fd = reply_fd, output_fd
        self._reply, self._output = bytearray(), bytearray()
        self._output_total = 0
        self._reply_overflow = False
        self._pidfd: int | None = None

    def wait(self) -> Exchange:
        try:
            started = self._message("pid")
        except (ConnectionError, OSError, ValueError, KeyError, TypeError):
            started = False  # the zygote went away before forking: nobody ran
        if not started:
            for fd in (self._request_fd, self._reply_fd, self._output_fd):
                os.close(fd)
            return Exchange(reply=b"", output=b"", output_truncated=False, reply_overflow=False,
                            timed_out=False, status=None, seconds=0.0)
        try:
            return self._collect()
        finally:
            if self._pidfd is not None:
                os.close(self._pidfd)

    def _collect(self) -> Exchange:
        limits = self._limits
        started = time.monotonic()
        deadline = started + limits.wall_seconds if self._deadline is None else self._deadline(self._reply, started)
        status: int | None = None
        timed_out = False
        selector = selectors.DefaultSelector()
        for fd in (self._reply_fd, self._output_fd):
            os.set_blocking(fd, False)
            selector.register(fd, selectors.EVENT_READ)
        os.set_blocking(self._request_fd, False)
        selector.register(self._request_fd, selectors.EVENT_WRITE)
        selector.register(self._sock, selectors.EVENT_READ)
        open_pipes = 2
        try:
            while (status is None or open_pipes) and not self._reply_overflow:
                if not open_pipes and self._finished(bytes(self._reply)):
                    break  # all said, and the child is on its way out: go on meanwhile
                timeout = deadline - time.monotonic()
                if status is not None:
                    timeout = min(timeout, 0.5)  # exited: only leftovers could hold the pipes open
                if timeout <= 0:
                    timed_out = status is None
                    break
                for key, _ in selector.select(timeout):
                    if key.fileobj is self._sock:
                        status = self._status_now()
                        selector.unregister(self._sock)
                        if status is None:  # the zygote itself is gone: nobody will say how the child ended
                            status = _UNKNOWN
                    elif key.fd == self._request_fd:
                        if not self._send_some():
                            selector.unregister(self._request_fd)
                            self._close_request()
                    elif self._take(int(key.fd)) is False:
                        selector.unregister(key.fd)
                        open_pipes -= 1
                    elif key.fd == self._reply_fd and self._deadline is not None:
                        deadline = self._deadline(self._reply, time.monotonic())
        finally:
            if self._pidfd is not None:
                _signal(self._pidfd, signal.SIGKILL)  # the zygote then kills whatever the child left
            if status is None and not (open_pipes == 0 and self._finished(bytes(self._reply))):
                status = self._collect_status()
            if status == _UNKNOWN:
                status = None
            for fd in (self._reply_fd, self._output_fd):
                while self._take(fd):  # what the child wrote just before the end
                    pass
            selector.close()
            self._close_request()
            os.close(self._reply_fd)
            os.close(self._output_fd)
        return Exchange(reply=bytes(self._reply), output=bytes(self._output),
                        output_truncated=self._output_total > len(self._output), reply_overflow=self._reply_overflow,
                        timed_out=timed_out, status=status, seconds=time.monotonic() - started)

    def _send_some(self) -> bool:
        """Write what the pipe takes of the request; False once it is all sent, or the child is gone."""
        try:
            self._request = self._request[os.write(self._request_fd, self._request):]
        except BlockingIOError:
            return True
        except OSError:  # the child died before reading; its status says why
            return False
        return bool(self._request)

    def _close_request(self) -> None:
        if self._request_fd >= 0:
            os.close(self._request_fd)
            self._request_fd = -1

    def _take(self, fd: int) -> bool | None:
        """Read what waits on `fd` into the capped buffers: True if read, None if none yet, False at EOF."""
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
                del self._reply[self._limits.reply_bytes:]
        else:
            self._output_total += len(chunk)
            room = self._limits.output_bytes - len(self._output)
            if room > 0:
                self._output += chunk[:room]
        return True

    def _message(self, kind: str) -> bool | int | None:
        """This run's word from the zygote: "pid" (True, with the child's pidfd) or "status" (the number)."""
        while True:
            data, fds = _recv(self._sock)
            message = json.loads(data)
            if message.get("run") != self._run:  # about an earlier run, which finished without it
                for fd in fds:
                    os.close(fd)
                continue
            if kind == "pid":
                self._pidfd = fds[0] if fds else None
                return True
            return int(message["status"])

    def _status_now(self) -> int | None:
        try:
            status = self._message("status")
        except (ConnectionError, OSError, ValueError, KeyError, TypeError):
            return None
        return int(status) if status is not None else None

    def _collect_status(self) -> int | None:
        self._sock.settimeout(5.0)
        try:
            return self._status_now()
        finally:
            self._sock.settimeout(None)


def _recv(sock: socket.socket) -> tuple[bytes, list[int]]:
    data, fds, _, _ = socket.recv_fds(sock, 1 << 16, 2)
    if not data:
        raise ConnectionError("the zygote has exited")
    return data, fds


def _signal(pidfd: int, number: int) -> None:
    try:
        signal.pidfd_send_signal(pidfd, number)
    except ProcessLookupError:
        pass


def _pid_of(pidfd: int) -> int | None:
    """The pid a pidfd refers to, as this process sees it."""
    try:
        for line in Path(f"/proc/self/fdinfo/{pidfd}").read_text().splitlines():
            if line.startswith("Pid:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return None

