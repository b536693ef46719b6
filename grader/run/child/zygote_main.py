"""Inside a zygote: warm up once, then fork one confined child per run and clean up after it.

This process starts as a fresh interpreter already inside its confinement
(grader.run.confine.isolate set it up before the exec), and imports nothing that loads ctypes unless
it runs in the landlock mode: a child forked from it inherits its memory, and ctypes would let a
submission rewrite that memory. Where the zygote has a PID namespace, it is the namespace's init:
after every run it kills everything left in the namespace (one kill(-1), which no process can
escape), and when the grading process goes away it exits, and the kernel kills whatever is left.
Children drop to a uid of their own where there is one.
"""

from __future__ import annotations

import gc
import importlib
import io
import json
import os
import resource
import secrets
import select
import shutil
import signal
import socket
import sys
from collections.abc import Callable
from typing import NoReturn

from grader.run.wire import Ended, Forked, Hello, MemoryFiles, RunHeader, ZygoteConfig, encode

#: all a child's environment holds but its own HOME, TMPDIR and MPLCONFIGDIR: nothing of the
#: grader's (tokens, paths); plotting cells draw into nothing, and plt.show() returns at once
CHILD_ENVIRONMENT = {
    "PATH": "/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "MPLBACKEND": "Agg",
}
SCRATCH = ("/tmp", "/var/tmp", "/dev/shm")
#: what the zygote's cgroups may hold beyond a run's limit while it cleans up after the run
CLEANUP_MEMORY = 256 * 1024 * 1024
Target = Callable[[int, int, Hello, frozenset[str]], NoReturn]


def main(config_text: str, startup: frozenset[str]) -> None:
    config = ZygoteConfig.from_json(json.loads(config_text))
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the grading process's to handle
    sock = socket.socket(fileno=config.sock)
    pid_namespace = config.mode.endswith("namespaces")
    if pid_namespace:
        _become_init(sock)
    elif config.mode == "landlock":
        signal.signal(signal.SIGTERM, _leave)  # the grading process died (parent-death signal)
        # each child confines itself with them
        from grader.run.confine import landlock, seccomp, syscalls  # noqa: F401

        # no process of the same user reads the zygote's memory
        syscalls.prctl(syscalls.PR_SET_DUMPABLE, 0)
    from grader.run.child import warm

    warm.warm(config.allowed)
    target = _resolve(config.target)
    hello = Hello(level=config.level, mode=config.mode, isolation=config.isolation)
    os.environ.clear()
    os.environ.update(CHILD_ENVIRONMENT)
    # What the warm-up made never changes: out of the collector's reach, a child's collections do
    # not write to (and so copy) every page of it.
    gc.freeze()
    me = os.pidfd_open(os.getpid())
    try:
        socket.send_fds(sock, [encode(hello)], [me])
    except (BrokenPipeError, ConnectionResetError):
        # the grading process closed its sandbox while this zygote warmed up: nobody to serve
        return
    os.close(me)
    _serve(sock, config, target, hello, startup, pid_namespace)


def _become_init(sock: socket.socket) -> None:
    """Fork the init of the PID namespace made for this zygote (its first child is pid 1), and wait
    on it."""
    child = os.fork()
    if child == 0:
        return
    sock.close()
    _, status = os.waitpid(child, 0)
    os._exit(os.waitstatus_to_exitcode(status) & 0xFF)


def _leave(*_: object) -> None:
    os._exit(1)


def _serve(
    sock: socket.socket,
    config: ZygoteConfig,
    target: Target,
    hello: Hello,
    startup: frozenset[str],
    pid_namespace: bool,
) -> None:
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(sock, 1 << 16, 3)
        except OSError:
            return
        if not data:
            return  # the grading process has gone
        header = RunHeader.from_json(json.loads(data))
        req_r, rep_w, out_w = fds
        workdir = _workdir(config.scratch, header, pid_namespace)
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        limited = _limit_memory(config.memory, header.group_memory)
        pid = os.fork()
        if pid == 0:
            try:
                _child(
                    header, (req_r, rep_w, out_w), workdir, config.mode, (target, hello, startup)
                )
            except BaseException:  # noqa: BLE001 - the grader's own failure, said in the output
                import traceback

                traceback.print_exc()
            finally:
                os._exit(70)
        for fd in fds:
            os.close(fd)
        pidfd = os.pidfd_open(pid)
        try:
            socket.send_fds(sock, [encode(Forked(header.run, pid, limited))], [pidfd])
        except OSError:
            pass  # the grading process went away: the wait below sees it and cleans up
        status = _wait(sock, pid, pidfd, header, pid_namespace)
        os.close(pidfd)
        # what the run left in memory (its files) must not hold the cleanup up
        if header.group_memory > 0:
            _limit_memory(config.memory, header.group_memory + CLEANUP_MEMORY)
        _sweep(header, pid_namespace)
        _wipe(workdir, pid_namespace, config.keep)
        try:
            sock.send(encode(Ended(header.run, status)))
        except OSError:
            return  # the grading process has what it needed and has gone


def _limit_memory(files: MemoryFiles | None, limit: int) -> bool:
    """Set the memory limit of the zygote's cgroups (0: none) through the descriptors it was given;
    False where the kernel refuses (the grading process then says the limit held per process).
    Without them (no memory cgroup) or without cgroups (-1), there is nothing to set."""
    if files is None or limit < 0:
        return True
    value = (str(limit) if limit > 0 else "max" if files.version == 2 else "-1").encode()
    try:
        # v1's memory and swap together is never below memory alone: lift it first
        if files.swap >= 0:
            os.write(files.swap, b"-1")
        os.write(files.memory, value)
        if files.swap >= 0:
            os.write(files.swap, value)
    except OSError:
        return False
    return True


def _wait(sock: socket.socket, pid: int, pidfd: int, header: RunHeader, pid_namespace: bool) -> int:
    """The child's wait status; should the grading process go away meanwhile, clean up and leave."""
    while True:
        readable, _, _ = select.select([pidfd, sock.fileno()], [], [])
        if pidfd in readable:
            return os.waitpid(pid, 0)[1]
        if not sock.recv(1, socket.MSG_PEEK):
            signal.pidfd_send_signal(pidfd, signal.SIGKILL)
            _sweep(header, pid_namespace)
            os._exit(0)


def _sweep(header: RunHeader, pid_namespace: bool) -> None:
    """Nothing a run started outlives it."""
    if pid_namespace:
        try:
            # as init: every process in the namespace but this one, atomically
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            pass
    elif header.uid is not None:  # every process of the run's own uid, from a process of that uid
        sweeper = os.fork()
        if sweeper == 0:
            try:
                os.setgroups([])
                os.setgid(header.uid)
                os.setuid(header.uid)
                os.kill(-1, signal.SIGKILL)
            finally:
                os._exit(0)
    while True:  # the run's child and whatever it left, reparented here
        try:
            if os.waitpid(-1, 0 if pid_namespace or header.uid is not None else os.WNOHANG) == (
                0,
                0,
            ):
                break
        except ChildProcessError:
            break


def _workdir(scratch: str, header: RunHeader, pid_namespace: bool) -> str:
    """The run's own folder; outside a tree of its own, named unguessably in a folder others cannot
    list."""
    while True:
        path = (
            "/tmp/submission"
            if pid_namespace
            else os.path.join(scratch, f"run-{secrets.token_hex(8)}")
        )
        try:
            os.mkdir(path, 0o700)
            break
        except FileExistsError:
            if pid_namespace:
                shutil.rmtree(path, ignore_errors=True)
    if header.uid is not None and header.files_as_root:
        # Its own to os.access (asked as its uid), and to its files' root (fsuid and fsgid 0)
        # through the group: nobody else's.
        os.chown(path, header.uid, 0)
        os.chmod(path, 0o770)
    elif header.uid is not None:
        os.chown(path, header.uid, header.uid)
    return path


def _wipe(workdir: str, pid_namespace: bool, keep: tuple[str, ...]) -> None:
    """What a run wrote is gone before the next starts: its scratch folders are the zygote's (but
    for the tree's own folders that lie in them, `keep`: a checkout under /tmp)."""
    for folder in SCRATCH if pid_namespace else (workdir,):
        if not pid_namespace:
            shutil.rmtree(folder, ignore_errors=True)
            continue
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            if any(k == entry.path or k.startswith(entry.path + "/") for k in keep):
                continue
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                try:
                    os.unlink(entry.path)
                except OSError:
                    pass


def _child(
    header: RunHeader,
    fds: tuple[int, int, int],
    workdir: str,
    mode: str,
    call: tuple[Target, Hello, frozenset[str]],
) -> NoReturn:
    """Become the run's child, alone and limited, in its folder: then the run's target."""
    req_r, rep_w, out_w = fds
    target, hello, startup = call
    os.setsid()  # a session of its own: nothing of it reads the grading process's terminal
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(out_w, 1)
    os.dup2(out_w, 2)
    _close_fds_except({0, 1, 2, req_r, rep_w})
    _fresh_stdio()
    resource.setrlimit(resource.RLIMIT_NPROC, (header.nproc, header.nproc))
    if header.uid is not None and header.files_as_root:
        from grader.run.confine import syscalls

        syscalls.become_with_root_files(header.uid)
        # what it makes stays writable to its uid, as os.access asks (inside its own folder alone)
        os.umask(0)
    elif header.uid is not None:
        os.setgroups([])
        os.setgid(header.uid)
        os.setuid(header.uid)
    if mode == "landlock":  # no PID namespace: no processes of its own, no signals to others
        from grader.run.confine import landlock, seccomp, syscalls

        # after the ids: changing them clears it
        syscalls.die_with_parent(signal.SIGKILL, os.getppid())
        # root where it is the grader's own user
        if os.geteuid() == 0 and not syscalls.drop_capabilities():
            raise OSError("the capabilities could not be dropped")
        if landlock.confine_run(workdir) == 0:
            raise OSError("the run's own Landlock layer was refused")
        if not seccomp.install(seccomp.confined_child_rules()):
            raise OSError("the seccomp filter was refused")
    resource.setrlimit(resource.RLIMIT_CPU, (header.cpu, header.cpu + 1))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (header.file_bytes, header.file_bytes))
    if header.memory_cap > 0:
        # Set after the fork, on top of what the zygote maps: a memory bomb becomes MemoryError
        # while torch keeps working.
        resource.setrlimit(resource.RLIMIT_AS, (header.memory_cap, header.memory_cap))
    os.chdir(workdir)
    os.environ.update(
        {"HOME": workdir, "TMPDIR": workdir, "MPLCONFIGDIR": os.path.join(workdir, ".matplotlib")}
    )
    target(req_r, rep_w, hello, startup)


def _fresh_stdio() -> None:
    """Python-level streams on fds 0-2, whatever the zygote had; what is written to them is out at
    once, so that a run's output up to its last word is all there when the grader reads it
    (grader.run.running)."""
    sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False), encoding="utf-8")
    sys.stdout = io.TextIOWrapper(
        io.FileIO(1, "w", closefd=False),
        encoding="utf-8",
        errors="backslashreplace",
        line_buffering=True,
        write_through=True,
    )
    sys.stderr = io.TextIOWrapper(
        io.FileIO(2, "w", closefd=False),
        encoding="utf-8",
        errors="backslashreplace",
        line_buffering=True,
        write_through=True,
    )


def _close_fds_except(keep: set[int]) -> None:
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    top = soft if 0 < soft < 1 << 20 else 1 << 16
    low = 0
    for fd in [*sorted(keep), top]:
        if low < fd:  # os.closerange(n, n) would close every descriptor from n up (CPython 3.11)
            os.closerange(low, fd)
        low = fd + 1


def _resolve(path: str) -> Target:
    module, _, name = path.partition(":")
    function: Target = getattr(importlib.import_module(module), name)
    return function
