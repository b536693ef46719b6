"""The grading process's side of a zygote: start one, confined, and run children through it with
capped pipes.

A zygote is a fresh interpreter that imports only the child's side of the grader (and torch or
numpy, where allowed). It is set up by a process forked from this one that confines itself
(grader.run.confine.isolate) and then executes the interpreter, so it holds none of this
process's memory (the reference engine, exercises, expected values). For each run this process
hands it three pipe ends over a Unix socket; the zygote forks a child that reads its request and
writes its reply on them, and sends back the child's pid with a pidfd, then its exit status. This
process alone reads the replies, keeps the deadline and kills the child (through the pidfd: the
child's pid means nothing in its namespace). What they say to each other is grader.run.wire's.
"""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

from grader.run.confine import cgroups, isolate, tree
from grader.run.policy import ImportPolicy
from grader.run.running import (
    MIB,
    Counted,
    Deadline,
    Ends,
    Limits,
    Running,
    TwoParts,
    pid_of,
    receive,
    send_signal,
)
from grader.run.wire import Hello, MemoryFiles, RunHeader, ZygoteConfig, encode

#: the `python -c` program of a zygote; it notes which modules the interpreter had before the
#: grader's
ENTRY = (
    "import sys; _startup = frozenset(sys.modules); "
    "from grader.run.child.zygote_main import main; main(sys.argv[1], _startup)"
)
#: what of the grader's environment a zygote starts with: what Python, torch and CUDA need to
#: load, never the rest (CI tokens, keys), which a child could otherwise read back from its
#: environment. Names, and prefixes of names: a prefix such as HOME would let
#: HOMEBREW_GITHUB_API_TOKEN through.
_ZYGOTE_NAMES = frozenset({"PATH", "HOME", "LANG", "TZ", "LD_LIBRARY_PATH"})
_ZYGOTE_PREFIXES = ("LC_", "CUDA_", "NVIDIA_", "TORCH_", "OMP_", "MKL_")
#: what a run's cgroup holds beyond its budget and the zygote's pages: page tables, buffers
RUN_MEMORY_SLACK = 64 * MIB
#: tasks in the zygote's cgroups beyond the zygote and the run: the zygote's sweeper
RUN_TASK_SLACK = 2
#: what a zygote's run of nothing may take (its child exits at once)
REHEARSAL_SECONDS = 10.0


class ZygoteFailed(OSError):
    """The zygote could not be set up in the mode asked for."""


class Zygote:
    """A warm, confined process that forks sandboxed children on request; one run at a time."""

    def __init__(
        self,
        policy: ImportPolicy,
        mode: isolate.Mode,
        *,
        hide: tuple[str, ...] = (),
        target: str = "grader.run.child.child:serve",
    ) -> None:
        self.policy, self.mode = policy, mode
        self._hide, self._target = hide, target
        #: numbers each run, so that a late word about an earlier one is never taken for it
        self._runs = 0
        self._sock: socket.socket | None = None
        self._pid: int | None = None
        #: the zygote proper (the PID namespace's init, where there is one)
        self._pidfd: int | None = None
        self._scratch: str | None = None
        #: the cgroups it and its runs live in
        self._group: cgroups.ZygoteGroup | None = None
        self.hello: Hello | None = None
        #: start() was called: from then on, launch() starts a dead zygote again
        self._begun = False
        #: it ran its run of nothing since it last started (_rehearse)
        self._rehearsed = False

    @property
    def started(self) -> bool:
        return self._sock is not None

    def start(self) -> None:
        """Fork, confine, exec: the zygote warms up while this process goes on."""
        self._begun, self._rehearsed = True, False
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        plan = tree.layout(self.policy, self._hide)
        self._scratch = self._scratch_folder()
        self._group = self._cgroups()
        config, kept = self._config(theirs.fileno(), plan)
        argv = [sys.executable, "-B", "-c", ENTRY, encode(config).decode()]
        command = (argv, self._environment())
        failed_r, failed_w = os.pipe2(os.O_CLOEXEC)
        up_r, up_w = os.pipe()
        down_r, down_w = os.pipe()
        parent = os.getpid()
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the process that becomes the zygote
            pipes = (failed_r, failed_w, up_w, down_r)
            self._become(plan, parent, pipes, [theirs.fileno(), *kept], command)
        for fd in (failed_w, up_w, down_r, *kept):
            os.close(fd)
        theirs.close()
        self._adopt(pid)
        why = self._confined(pid, failed_r, up_r, down_w)
        if why:
            os.waitpid(pid, 0)
            ours.close()
            self._close_group()
            words = why.decode(errors="replace")
            raise ZygoteFailed(f"could not confine a zygote ({self.mode.kind}): {words}")
        self._sock, self._pid = ours, pid

    def _scratch_folder(self) -> str:
        """Where runs make their own folders: /tmp in a PID namespace (a tree of the zygote's
        own), else a folder others cannot list."""
        if self.mode.pid_namespace:
            return "/tmp"
        scratch = tempfile.mkdtemp(prefix="autograd-grader-runs-")
        os.chmod(scratch, 0o711)
        return scratch

    def _config(self, sock: int, plan: tree.Layout) -> tuple[ZygoteConfig, list[int]]:
        """What the zygote is started with, and the descriptors it keeps (its memory files)."""
        files = self._group.memory_files() if self._group is not None else None
        memory: MemoryFiles | None = None
        kept: list[int] = []
        if files is not None:
            memory = MemoryFiles(files["version"], files["memory"], files["swap"])
            kept = [fd for fd in (memory.memory, memory.swap) if fd >= 0]
        allowed = self.policy.allowed
        config = ZygoteConfig(
            sock=sock,
            memory=memory,
            target=self._target,
            allowed=tuple(sorted(allowed)) if allowed is not None else None,
            forbidden=tuple(sorted(self.policy.forbidden)),
            mode=self.mode.kind,
            level=self.mode.level,
            isolation=self.mode.describe(),
            scratch=self._scratch or "/tmp",
            keep=tuple(tree.kept_in_scratch(plan)),
        )
        return config, kept

    def _environment(self) -> dict[str, str]:
        """The zygote's environment: what it needs of this one's, and where the grader is."""
        env = {}
        for name, value in os.environ.items():
            if name in _ZYGOTE_NAMES or name.startswith(_ZYGOTE_PREFIXES):
                env[name] = value
        # The grader's child side; for torch exercises, packages the grading process was given by
        # PYTHONPATH too.
        extra = os.environ.get("PYTHONPATH", "") if self.policy.allows_everything else ""
        grader = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [grader, extra]))
        env["PYTHONNOUSERSITE"] = "1"
        # The same file and seed give the same report from any zygote: a submission's values can
        # hang on the order of a set, which follows its objects' hashes (str's are salted per
        # process; an object's is its address)
        env["PYTHONHASHSEED"] = "0"
        return env

    def _become(
        self,
        plan: tree.Layout,
        parent: int,
        pipes: tuple[int, int, int, int],
        inherited: list[int],
        command: tuple[list[str], dict[str, str]],
    ) -> NoReturn:  # pragma: no cover - the process that becomes the zygote
        """Confine this process, keep only the descriptors the zygote needs, and execute it; or
        say why not on the `failed` pipe."""
        failed_r, failed_w, up_w, down_r = pipes
        argv, env = command
        try:
            os.close(failed_r)
            assert self._scratch is not None
            # and the addresses themselves, before any confinement could refuse it: the same
            # allocations land at the same addresses in every zygote (a student's code reads them
            # with id() anyway)
            from grader.run.confine import syscalls

            syscalls.fixed_addresses()
            isolate.confine_zygote(self.mode, plan, parent, self._scratch, (up_w, down_r))
            low = 3
            for fd in sorted({*inherited, failed_w}):
                if fd != failed_w:
                    os.set_inheritable(fd, True)
                os.closerange(low, fd)
                low = fd + 1
            os.closerange(low, 1 << 16)
            os.execve(sys.executable, argv, env)
        except BaseException as exc:  # noqa: BLE001 - say why, for the grading process to raise
            os.write(failed_w, f"{type(exc).__name__}: {exc}".encode()[:1000])
        os._exit(70)

    def _adopt(self, pid: int) -> None:
        """Put the process that becomes the zygote in its cgroups."""
        if self._group is not None and not self._group.adopt(pid):
            # the zygote is told nothing: its limits are then never below the runs' budget
            self._group.remove()
            self._group = None

    def _confined(self, pid: int, failed_r: int, up_r: int, down_w: int) -> bytes:
        """Why the zygote could not be set up; nothing once its exec closed the pipe. In the
        mapped-namespaces mode, it asks this process to map its ids first."""
        try:
            if self.mode.kind == "mapped-namespaces" and os.read(up_r, 1) == b"u":
                from grader.run.confine import syscalls

                uids, gids = isolate.mapped_ids()
                mapped = syscalls.map_ids(pid, uids, gids, deny_setgroups=False)
                os.write(down_w, b"m" if mapped else b"x")
            return os.read(failed_r, 1000)
        finally:
            for fd in (failed_r, up_r, down_w):
                os.close(fd)

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()  # the zygote reads end of file, and its PID namespace dies with it
            self._sock = None
        if self._pidfd is not None:
            send_signal(self._pidfd, signal.SIGKILL)
            os.close(self._pidfd)
            self._pidfd = None
        if self._pid is not None:
            try:
                os.kill(self._pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            try:
                os.waitpid(self._pid, 0)
            except ChildProcessError:  # already reaped (by alive())
                pass
            self._pid = None
        self.hello = None  # a zygote started again greets again
        self._close_group()
        if self._scratch and self._scratch != "/tmp":
            import shutil

            shutil.rmtree(self._scratch, ignore_errors=True)

    def _close_group(self) -> None:
        if self._group is not None:
            self._group.remove()
            self._group = None

    def ready(self) -> bool:
        """Whether the zygote has warmed up (its first word has come), without waiting for it."""
        if self.hello is not None:
            return True
        return self._sock is not None and bool(select.select([self._sock], [], [], 0)[0])

    def alive(self) -> bool:
        if self._pid is None:
            return False
        try:
            if os.waitpid(self._pid, os.WNOHANG) == (0, 0):
                return True
        except ChildProcessError:
            pass
        self._pid = None  # reaped, here or elsewhere: close() must not wait for it again
        return False

    def launch(
        self,
        request: bytes,
        limits: Limits,
        *,
        finished: Callable[[bytes], bool],
        deadline: Deadline | None = None,
        two_parts: TwoParts | None = None,
    ) -> Running:
        """Fork a child for one run and hand it `request`.

        `finished(reply)` says when it has said all, and `deadline(reply, now)` when it must have
        (default: the wall-clock limit from its start). With `two_parts`, the run is in two
        parts, and `two_parts` gives the second once the child has said all of the first.
        """
        if self._sock is None and not self._begun:
            raise RuntimeError("the zygote is not running")
        if self._sock is None or not self.alive():  # a submission may kill what it can reach
            self.close()
            self.start()  # a failed start is tried again: one failure never costs every run
        assert self._sock is not None
        self._greeted()
        if not self._rehearsed:
            self._rehearse()
        req_r, req_w = os.pipe()
        rep_r, rep_w = os.pipe()
        out_r, out_w = os.pipe()
        self._runs += 1
        header, oom_kills = self._header(limits)
        try:
            socket.send_fds(self._sock, [encode(header)], [req_r, rep_w, out_w])
        finally:
            for fd in (req_r, rep_w, out_w):
                os.close(fd)
        group = self._group if oom_kills is not None else None
        weaker = group.weaker if group is not None else tuple(cgroups.NAMES.values())
        ends = Ends(self._sock, self._runs, req_w, rep_r, out_r)
        counted = Counted(group, oom_kills or 0, weaker)
        return Running(
            ends,
            request,
            limits,
            finished=finished,
            deadline=deadline,
            counted=counted,
            two_parts=two_parts,
        )

    def _header(self, limits: Limits) -> tuple[RunHeader, int | None]:
        """The next run's header, and the OOM kills in the zygote's cgroups so far (None: no
        cgroups)."""
        size, resident = self._zygote_size()
        group_memory, oom_kills = self._group_limits(limits, resident)
        memory_cap = 0
        if size and limits.memory_mb > 0:
            memory_cap = size + limits.memory_mb * MIB
        header = RunHeader(
            run=self._runs,
            uid=isolate.run_uid() if self.mode.fresh_uids else None,
            files_as_root=self.mode.files_as_root,
            cpu=limits.cpu_seconds,
            memory_cap=memory_cap,
            group_memory=group_memory,
            file_bytes=limits.file_bytes,
            nproc=self._nproc(),
        )
        return header, oom_kills

    def _rehearse(self) -> None:
        """One run of nothing (its child finds no request and exits) before a zygote's first real
        one: what the zygote's own loop sets up the first time it runs leaves its first child a heap
        no later child sees, and a submission whose values hang on object addresses (a walk over a
        set of nodes) would answer the first run of a zygote otherwise than every later one (in a
        batch, whichever student a worker grades first)."""
        self._rehearsed = True
        self.launch(
            b"", Limits(wall_seconds=REHEARSAL_SECONDS), finished=lambda reply: False
        ).wait()

    def _greeted(self) -> None:
        """The zygote's first word: how it is confined (trusted: no student code ever ran in
        it)."""
        if self.hello is not None:
            return
        assert self._sock is not None
        data, fds = receive(self._sock)
        self.hello = Hello.from_json(json.loads(data))
        self._pidfd = fds[0] if fds else None

    def _zygote_size(self) -> tuple[int, int]:
        """What the zygote maps, and its anonymous memory resident, in bytes; (0, 0) where not
        readable.

        RLIMIT_AS counts what the zygote already maps, so a run's budget goes on top of its size
        now; a run's cgroup is charged for the zygote's pages the run writes to (copied on
        write): at most its resident anonymous memory (shared libraries stay the zygote's).
        """
        if self._pidfd is None:
            return 0, 0
        found = {b"VmSize:": 0, b"RssAnon:": 0}
        try:
            status = Path(f"/proc/{pid_of(self._pidfd)}/status").read_bytes()
            for line in status.splitlines():
                key = line.partition(b":")[0] + b":"
                if key in found:
                    found[key] = int(line.split()[1]) * 1024
        except (OSError, ValueError):
            return 0, 0  # not readable: the wall-clock and CPU limits still hold
        return found[b"VmSize:"], found[b"RssAnon:"]

    def _cgroups(self) -> cgroups.ZygoteGroup | None:
        """The zygote's own cgroups (grader.run.confine.cgroups); the process that becomes it is
        put in after the fork."""
        place = cgroups.place() if self.mode.run_cgroups else None
        if place is None or not place.hierarchies:
            return None
        return cgroups.make(place)

    def _group_limits(self, limits: Limits, resident: int) -> tuple[int, int | None]:
        """The memory the zygote's cgroups may hold during the next run (0: no limit, -1: no
        group), and the OOM kills so far (None: no group)."""
        if self._group is None:
            return -1, None
        try:
            base, oom_kills = self._group.prepare(isolate.MAX_PROCESSES + RUN_TASK_SLACK)
        except OSError:
            return -1, None
        if limits.memory_mb <= 0:
            return 0, oom_kills
        # The budget of one process, plus the zygote's pages a run may copy: one process alone
        # still meets its own address-space limit first (a MemoryError it can handle), all of
        # them together this one.
        budget = base + limits.memory_mb * MIB + resident + RUN_MEMORY_SLACK
        return budget, oom_kills

    def _nproc(self) -> int:
        """The process limit: a fresh uid counts only its own; the grader's user counts all of
        its."""
        if self.mode.fresh_uids:
            return isolate.MAX_PROCESSES
        return isolate.processes_of(os.getuid()) + isolate.MAX_PROCESSES
