"""Fork-per-run process mechanics: a warm zygote, resource limits, timeouts, capped pipes.

The coordinator (the trusted grading process) starts a zygote as a fresh interpreter that imports
only the child's side (and torch, where allowed). For each run it hands the zygote three pipe ends
over a Unix socket; the zygote forks a child that reads its request and writes its reply on those
pipes. The zygote is never forked from the coordinator: a fork would carry the coordinator's memory
(the reference engine, exercises, cached expected values) into every child, where gc.get_objects()
finds it. The coordinator alone reads the replies, enforces the deadline and kills the process group.
"""

from __future__ import annotations

import gc
import importlib
import io
import json
import os
import resource
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from grader import isolate

MIB = 1024 * 1024
_UNKNOWN = -1  # a status no wait() returns: the zygote went away before saying


@dataclass(frozen=True, slots=True, kw_only=True)
class Limits:
    """What one run of student code may use."""

    wall_seconds: float = 10.0
    #: address space on top of what the warm parent already maps (torch alone maps ~600 MB); 0: no cap
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


Target = Callable[[int, int], NoReturn]

#: what of the grader's environment a zygote starts with: what Python, torch and CUDA need to load,
#: never the rest (CI tokens, keys), which a child could otherwise read back from /proc/self/environ.
#: Names, and prefixes of names: a prefix such as HOME would let HOMEBREW_GITHUB_API_TOKEN through.
_ZYGOTE_NAMES = frozenset({"PATH", "HOME", "LANG", "TZ", "TMPDIR", "LD_LIBRARY_PATH"})
_ZYGOTE_PREFIXES = ("LC_", "PYTHON", "CUDA_", "NVIDIA_", "TORCH_", "OMP_", "MKL_")


class Zygote:
    """A warm process that forks sandboxed children on request; one run at a time.

    `target(request_fd, reply_fd)` is what each child runs; `warm()` imports what children share.
    Both must be module-level functions: the zygote is a fresh interpreter that imports them.
    """

    def __init__(self, target: Target, warm: Callable[[], None]) -> None:
        self._target, self._warm = target, warm
        self._runs = 0  # numbers each run, so that a late word about an earlier one is never taken for it
        self._sock: socket.socket | None = None
        self._spawned: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start the zygote as a fresh interpreter; it warms up while this process goes on."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        package_root = str(Path(__file__).resolve().parent.parent)
        env = {name: value for name, value in os.environ.items()
               if name in _ZYGOTE_NAMES or name.startswith(_ZYGOTE_PREFIXES)}
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")]))
        entry = "import sys; from grader.zygote import spawned_main; spawned_main(sys.argv[1:])"
        command = [sys.executable, "-c", entry, str(os.getpid()), str(theirs.fileno()), _path_of(self._target),
                   _path_of(self._warm)]
        _flush_stdio()
        self._spawned = subprocess.Popen(command, pass_fds=(theirs.fileno(),), env=env)
        theirs.close()
        self._sock = ours

    @property
    def started(self) -> bool:
        return self._sock is not None

    def _alive(self) -> bool:
        return self._spawned is not None and self._spawned.poll() is None

    def restart(self) -> None:
        self.close()
        self.start()

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        if self._spawned is not None:
            self._spawned.kill()
            self._spawned.wait()
            self._spawned = None

    def __enter__(self) -> Zygote:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def launch(self, request: bytes, limits: Limits, workdir: str, *, hide: tuple[str, ...] = (),
               uid: int | None = None, done: bytes = b"") -> Running:
        """Fork a child for one run and hand it `request`; the child starts at once.

        `hide` are folders the child must not see; `uid` the unprivileged user it becomes (as root).
        `done`: the reply's last line when the child finished its work; once the reply ends with it
        and both pipes are closed, the run is over without waiting for the child's exit status.
        A zygote that died (a submission may kill what it can reach) is started again first.
        """
        if self._sock is None:
            raise RuntimeError("the zygote is not running")
        if not self._alive():
            self.restart()
        req_r, req_w = os.pipe()
        rep_r, rep_w = os.pipe()
        out_r, out_w = os.pipe()
        self._runs += 1
        header = json.dumps({"run": self._runs, "workdir": workdir, "wall": limits.wall_seconds,
                             "cpu": limits.cpu_seconds, "memory_mb": limits.memory_mb, "file_bytes": limits.file_bytes,
                             "mpl_cache": _mpl_cache(), "hide": list(hide), "uid": uid}).encode()
        try:
            assert self._sock is not None
            socket.send_fds(self._sock, [header], [req_r, rep_w, out_w])
        finally:
            for fd in (req_r, rep_w, out_w):
                os.close(fd)
        # The zygote may still be warming up: the child's pid, and its clock, come in wait().
        return Running(self._sock, self._runs, req_w, request, rep_r, out_r, limits, done)


class Running:
    """A child at work: `wait()` collects its reply, its output and how it ended."""

    def __init__(self, sock: socket.socket, run: int, request_fd: int, request: bytes, reply_fd: int,
                 output_fd: int, limits: Limits, done: bytes = b"") -> None:
        self._sock, self._run, self._limits, self._done = sock, run, limits, done
        self._request_fd, self._request = request_fd, memoryview(request)
        self._reply_fd, self._output_fd = reply_fd, output_fd
        self._reply, self._output = bytearray(), bytearray()
        self._output_total = 0
        self._reply_overflow = False

    def wait(self) -> Exchange:
        try:
            pid: int | None = self._message("pid")
            while pid is None:  # the exit status of the run before, which finished without it
                pid = self._message("pid")
        except (ConnectionError, OSError, ValueError, KeyError, TypeError):
            pid = None  # the zygote went away before forking: nobody ran
        if pid is None:
            for fd in (self._request_fd, self._reply_fd, self._output_fd):
                os.close(fd)
            return Exchange(reply=b"", output=b"", output_truncated=False, reply_overflow=False,
                            timed_out=False, status=None, seconds=0.0)
        return self._collect(pid)

    def _collect(self, pid: int) -> Exchange:
        limits = self._limits
        started = time.monotonic()
        deadline = started + limits.wall_seconds
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
                if not open_pipes and self._finished():
                    break  # all said, and the child is on its way out: the coordinator goes on meanwhile
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
        finally:
            _kill_group(pid)  # the child, and anything it left running
            if status is None and not self._finished():
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
        return Exchange(
            reply=bytes(self._reply),
            output=bytes(self._output),
            output_truncated=self._output_total > len(self._output),
            reply_overflow=self._reply_overflow,
            timed_out=timed_out,
            status=status,
            seconds=time.monotonic() - started,
        )

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

    def _finished(self) -> bool:
        return bool(self._done) and self._reply.endswith(self._done)

    def _message(self, kind: str) -> int | None:
        """This run's `kind` ("pid" or "status") from the zygote; None for a word about an earlier run."""
        message = json.loads(_recv(self._sock))
        return int(message[kind]) if message["run"] == self._run else None

    def _status_now(self) -> int | None:
        try:
            return self._message("status")
        except (ConnectionError, OSError, ValueError, KeyError, TypeError):
            return None

    def _collect_status(self) -> int | None:
        self._sock.settimeout(5.0)
        try:
            return self._status_now()
        finally:
            self._sock.settimeout(None)


# ------------------------------------------------------------------------------------------------
# Zygote and child side


def spawned_main(argv: list[str]) -> None:
    """Entry point of a zygote started as a fresh interpreter: socket fd, target, warm-up."""
    parent, fd, target_path, warm_path = argv
    isolate.die_with(int(parent))
    sock = socket.socket(fileno=int(fd))
    _resolve(warm_path)()
    _zygote_main(sock, _resolve(target_path))


def _path_of(function: Callable[..., object]) -> str:
    return f"{function.__module__}:{function.__qualname__}"


def _resolve(path: str) -> Callable[..., Any]:
    module, _, name = path.partition(":")
    function: Callable[..., Any] = getattr(importlib.import_module(module), name)
    return function


#: all a child's environment holds but its own HOME, TMPDIR and MPLCONFIGDIR: nothing of the grader's
#: (tokens, paths); plotting cells draw into nothing, and plt.show() returns at once
CHILD_ENVIRONMENT = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
                     "MPLBACKEND": "Agg"}


def _zygote_main(sock: socket.socket, target: Target) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the coordinator's to handle
    # Scrubbed once here, after the warm-up, rather than in every child: the zygote needs none of it now.
    os.environ.clear()
    os.environ.update(CHILD_ENVIRONMENT)
    isolate.protect_grader()
    isolate.become_subreaper()  # what a child leaves behind comes back here, to be killed
    _close_fds_except({0, 1, 2, sock.fileno()})
    # What the warm-up made never changes: out of the collector's reach, a child's collections do not
    # write to (and so copy) every page of it.
    gc.freeze()
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(sock, 1 << 16, 3)
        except OSError:
            return
        if not data:
            return  # the coordinator has gone
        header = json.loads(data)
        req_r, rep_w, out_w = fds
        isolate.enclose(header["hide"], header["uid"])
        _flush_stdio()
        zygote = os.getpid()
        pid = os.fork()
        if pid == 0:
            try:
                _child_main(header, req_r, rep_w, out_w, target, zygote)
            except BaseException:  # noqa: BLE001 - the grader's own failure: say it where the output goes
                import traceback

                traceback.print_exc()
            finally:
                os._exit(70)
        for fd in fds:
            os.close(fd)
        run = header["run"]
        sock.send(json.dumps({"run": run, "pid": pid}).encode())
        _, status = os.waitpid(pid, 0)
        isolate.reap_orphans()  # a double fork and setsid() leave its group, never this subreaper
        sock.send(json.dumps({"run": run, "status": status}).encode())


def _child_main(header: dict[str, object], req_r: int, rep_w: int, out_w: int, target: Target,
                zygote: int) -> NoReturn:
    os.setsid()  # own session and process group: the coordinator kills the whole group
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(out_w, 1)
    os.dup2(out_w, 2)
    _close_fds_except({0, 1, 2, req_r, rep_w})
    _fresh_stdio()
    hide = header["hide"]
    uid = header["uid"]
    assert isinstance(hide, list) and (uid is None or isinstance(uid, int))
    workdir = isolate.confine(str(header["workdir"]), [str(h) for h in hide], uid)
    isolate.die_with(zygote)
    _set_limits(header)
    mpl_cache = str(header["mpl_cache"])
    os.chdir(workdir)
    # On top of the zygote's scrubbed environment (CHILD_ENVIRONMENT). matplotlib's font cache is
    # shared where the child can still write the grader's (unconfined), else it lives in its own folder.
    os.environ.update({"HOME": workdir, "TMPDIR": workdir,
                       "MPLCONFIGDIR": mpl_cache if os.access(mpl_cache, os.W_OK)
                       else os.path.join(workdir, ".matplotlib")})
    target(req_r, rep_w)


def _fresh_stdio() -> None:
    """Python-level streams on fds 0-2, whatever the parent had (pytest, for one, swaps them out)."""
    sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False), encoding="utf-8")
    sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8", errors="backslashreplace",
                                  line_buffering=True)
    sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8", errors="backslashreplace",
                                  line_buffering=True)


def _set_limits(header: dict[str, object]) -> None:
    cpu = int(str(header["cpu"]))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    file_bytes = int(str(header["file_bytes"]))
    resource.setrlimit(resource.RLIMIT_FSIZE, (file_bytes, file_bytes))
    # RLIMIT_AS counts what torch already maps, so the budget goes on top of the current size;
    # set after the fork, a memory bomb becomes MemoryError while torch keeps working.
    mapped = _mapped_bytes()
    if mapped is not None and int(str(header["memory_mb"])) > 0:
        cap = mapped + int(str(header["memory_mb"])) * MIB
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


def _mapped_bytes() -> int | None:
    try:  # bytes: a text file would import its codec in every child
        with open("/proc/self/status", "rb") as status:
            for line in status:
                if line.startswith(b"VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None  # not Linux: no address-space cap, the wall-clock and CPU limits still hold


def _close_fds_except(keep: set[int]) -> None:
    low = 0
    for fd in sorted(keep) + [_max_fd()]:
        if low < fd:  # os.closerange(n, n) would close every descriptor from n up (CPython 3.11)
            os.closerange(low, fd)
        low = fd + 1


def _max_fd() -> int:
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return soft if 0 < soft < 1 << 20 else 1 << 16


def _mpl_cache() -> str:
    """A font cache matplotlib keeps between runs: built once, not in every child's fresh HOME."""
    path = Path(tempfile.gettempdir()) / f"autograd-grader-matplotlib-{os.getuid()}"
    path.mkdir(mode=0o700, exist_ok=True)
    return str(path)


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _flush_stdio() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass


def _recv(sock: socket.socket) -> bytes:
    data = sock.recv(1 << 16)
    if not data:
        raise ConnectionError("the zygote has exited")
    return data


