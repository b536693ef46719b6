"""How zygotes are confined: the strongest mode this machine allows, found once, and set up before
exec.

A zygote's confinement is built in the process that becomes it, forked from the grading process,
just before it executes a fresh interpreter: namespaces and the file tree of
`grader.run.confine.tree`, or Landlock where namespaces are refused, or nothing. The exec leaves
none of the grading process's memory (and no ctypes) behind. Every child of the zygote then only
drops to a uid of its own and sets its limits: plain os calls. The modes, strongest first:

- root-namespaces (root with CAP_SYS_ADMIN): mount, network and PID namespaces, the tree, a fresh
  uid per run; the zygote is the PID namespace's init and kills everything left in it after each
  run.
- mapped-namespaces (root without CAP_SYS_ADMIN, a user namespace whose uid map the grading process
  writes): the same, the uids mapped to unprivileged ones outside.
- user-namespaces (another user): the same namespaces and tree, but every run runs as that user.
- landlock (no namespaces; a default Docker container): Landlock limits reads to the tree's list,
  writes to the run's own folder, and refuses TCP; each run adds a Landlock layer of its own
  (scoping signals and abstract sockets to itself, from ABI 6) and a seccomp filter refuses sockets,
  new processes, signals to others and the calls that reach other processes or change files' owners'
  attributes. As root each run has a uid of its own; where the interpreter is closed to other users
  it keeps root for files alone (its fsuid), so the kernel's checks between processes still see a
  user of its own.
- none: only resource limits; graded only where nothing is at stake or the risk was accepted.
"""

from __future__ import annotations

import functools
import os
import signal
import sys
from dataclasses import dataclass
from typing import Literal

from grader.run.confine import landlock, syscalls, tree

Level = Literal["full", "namespaces", "landlock", "none"]
LEVELS: tuple[Level, ...] = ("none", "landlock", "namespaces", "full")
Kind = Literal["root-namespaces", "mapped-namespaces", "user-namespaces", "landlock", "none"]
#: first uid of the range runs draw from; no account uses them, and each run has one to itself
FIRST_UID = 70000
UID_RANGE = 1_000_000
#: processes and threads one run may have at once (a fork bomb stops here)
MAX_PROCESSES = 64


#: the namespaces of the namespace modes: mounts, network, PIDs, and System V IPC and POSIX message
#: queues
NAMESPACES = (
    syscalls.CLONE_NEWNS | syscalls.CLONE_NEWNET | syscalls.CLONE_NEWPID | syscalls.CLONE_NEWIPC
)
#: the Landlock ABI that scopes signals to a run's own domain: without it, only a uid of its own
#: keeps a run from signalling its zygote
SCOPED_ABI = 6


@dataclass(frozen=True, slots=True)
class Mode:
    kind: Kind
    #: what was missing for a stronger mode, in words (empty for the strongest)
    missing: str = ""
    #: give each run cgroups of its own where they can be had (grader.run.confine.cgroups); off to
    #: measure them
    run_cgroups: bool = True

    @property
    def level(self) -> Level:
        return {
            "root-namespaces": "full",
            "mapped-namespaces": "full",
            "user-namespaces": "namespaces",
            "landlock": "landlock",
            "none": "none",
        }[self.kind]  # type: ignore[return-value]

    @property
    def fresh_uids(self) -> bool:
        """Each run has a uid of its own: in a tree of its own as root, or as root on the machine's
        files (for files alone as root where other users cannot reach the interpreter:
        `files_as_root`)."""
        if self.kind in ("root-namespaces", "mapped-namespaces"):
            return True
        return (
            self.kind in ("landlock", "none")
            and os.geteuid() == 0
            and (self.kind == "landlock" or interpreter_reachable())
        )

    @property
    def files_as_root(self) -> bool:
        """A landlocked run as root where the interpreter's folders are closed to other users: its
        uid is its own, its fsuid stays root (without any capability), so it can read the
        interpreter."""
        return self.kind == "landlock" and os.geteuid() == 0 and not interpreter_reachable()

    @property
    def pid_namespace(self) -> bool:
        return self.kind.endswith("namespaces")

    def describe(self) -> str:
        if self.kind == "landlock":
            if self.files_as_root:
                user = ", a user of its own for every run (files as root, without capabilities)"
            elif self.fresh_uids:
                user = ", a user of its own for every run"
            else:
                user = ", signals scoped to the run"
            return (
                "Landlock file and TCP rules, a seccomp filter (no sockets, no new processes, no "
                "signals to others)" + user
            )
        return _DESCRIBED[self.kind]


#: how each mode but landlock confines, in words
_DESCRIBED = {
    "root-namespaces": "own PID, mount and network namespaces, a file tree holding only what it "
    "needs, a user of its own for every run",
    "mapped-namespaces": "own user, PID, mount and network namespaces, a file tree holding only "
    "what it needs, a user of its own for every run",
    "user-namespaces": "own user, PID, mount and network namespaces and a file tree holding only "
    "what it needs, as the grader's user",
    "none": "resource limits only: the submission can read what the grader's user can, and reach "
    "the network",
}


@functools.cache
def interpreter_reachable() -> bool:
    """Whether a user of no account could run this interpreter: every folder above it is open to
    others."""
    for prefix in {sys.prefix, sys.base_prefix, os.path.realpath(sys.executable)}:
        path = os.path.realpath(prefix)
        while path not in ("/", ""):
            path = os.path.dirname(path)
            try:
                if not os.stat(path).st_mode & 0o001:
                    return False
            except OSError:
                return False
    return True


def at_least(level: Level, minimum: Level) -> bool:
    return LEVELS.index(level) >= LEVELS.index(minimum)


@functools.cache
def best_mode() -> Mode:
    """The strongest mode this process can set up, tried in throwaway children (once per
    process)."""
    root = os.geteuid() == 0
    if root and _try(lambda: syscalls.unshare(NAMESPACES)):
        return Mode("root-namespaces")
    if root and _try(lambda: syscalls.unshare(syscalls.CLONE_NEWUSER)):
        return Mode(
            "mapped-namespaces", "CAP_SYS_ADMIN (namespaces are made in a user namespace instead)"
        )
    if not root and _try(_user_namespaces):
        return Mode("user-namespaces", "root (runs cannot have users of their own)")
    missing = "CAP_SYS_ADMIN" if root else "unprivileged user namespaces"
    version = landlock.abi()
    if version >= 1 and (root or version >= SCOPED_ABI) and _try(_seccomp_works):
        return Mode("landlock", f"namespaces ({missing}, or user namespaces, are refused here)")
    # runs would share this user: only Landlock's scopes would keep them from signalling it
    if version >= 1:
        return Mode(
            "none",
            f"namespaces ({missing} or user namespaces), and Landlock ABI {SCOPED_ABI} (Linux "
            f"6.12+; this kernel has ABI {version}) to keep runs that share the grader's user from "
            f"signalling it",
        )
    return Mode(
        "none",
        f"namespaces ({missing} or user namespaces) and Landlock (Linux 5.13+ with landlock "
        f"among its security modules)",
    )


def _user_namespaces() -> bool:
    outside = os.getuid(), os.getgid()
    syscalls.prctl(syscalls.PR_SET_DUMPABLE, 1)
    return syscalls.unshare(syscalls.CLONE_NEWUSER | NAMESPACES) and _map_self(*outside)


def _seccomp_works() -> bool:
    from grader.run.confine import seccomp

    return seccomp.install([])


def _try(attempt: object) -> bool:
    """Whether `attempt()` returns True in a forked child (whose namespaces and filters die with
    it)."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child's side
        try:
            ok = attempt()  # type: ignore[operator]
        except BaseException:  # noqa: BLE001 - any failure means no
            ok = False
        os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0


def _map_self(uid: int, gid: int) -> bool:
    return syscalls.map_ids("self", f"{uid} {uid} 1", f"{gid} {gid} 1", deny_setgroups=True)


# ------------------------------------------------------------------------------------------------
# In the process that becomes a zygote, before exec


def confine_zygote(
    mode: Mode, plan: tree.Layout, parent: int, scratch: str, sync: tuple[int, int]
) -> None:
    """Set `mode` up in this process (forked from the grading process `parent`); raise OSError if it
    fails.

    `sync`: (write end, read end) of pipes to the grading process, which writes a mapped-namespaces
    zygote's uid map after the user namespace exists. `scratch`: the folder runs work in where there
    is no tree of their own (landlock, none).
    """
    syscalls.die_with_parent(signal.SIGKILL if mode.pid_namespace else signal.SIGTERM, parent)
    if mode.kind == "root-namespaces":
        _need(syscalls.unshare(NAMESPACES), "unshare")
    elif mode.kind == "mapped-namespaces":
        _need(syscalls.unshare(syscalls.CLONE_NEWUSER), "unshare a user namespace")
        os.write(sync[0], b"u")
        _need(os.read(sync[1], 1) == b"m", "the uid map")
        _need(syscalls.unshare(NAMESPACES), "unshare")
    elif mode.kind == "user-namespaces":
        _need(_user_namespaces(), "a user namespace")
    if mode.pid_namespace:
        _no_shared_ipc()
        _need(tree.build(plan), "the file tree")
    elif mode.kind == "landlock":
        read, listed = landlock.tree_rules(plan, files_as_root=mode.files_as_root)
        _need(landlock.restrict(read, [scratch, "/dev/null"], listed) > 0, "Landlock")
    syscalls.prctl(syscalls.PR_SET_CHILD_SUBREAPER, 1)


def _no_shared_ipc() -> None:
    """No System V IPC object or POSIX message queue in the zygote's own IPC namespace: what a run
    made there would outlive it (memory the next runs could neither see nor free) and reach the runs
    after it."""
    for path, value in (
        ("/proc/sys/kernel/shmmni", "0"),
        ("/proc/sys/kernel/msgmni", "0"),
        ("/proc/sys/kernel/sem", "0 0 0 0"),
        ("/proc/sys/fs/mqueue/queues_max", "0"),
    ):
        try:
            with open(path, "w") as file:
                file.write(value)
        except OSError:
            # refused in a user namespace on older kernels: the namespace still dies with the zygote
            pass


def mapped_ids() -> tuple[str, str]:
    """The uid and gid maps of a mapped-namespaces zygote: root as itself, and the runs' range."""
    lines = f"0 0 1\n{FIRST_UID} {FIRST_UID} {UID_RANGE}\n"
    return lines, lines


def _need(ok: bool, what: str) -> None:
    if not ok:
        raise OSError(f"{what} failed (errno {syscalls.errno()})")


def protect_grader() -> None:
    """Keep processes of the same user from reading this one's memory (/proc/<pid>/mem, environ)."""
    syscalls.prctl(syscalls.PR_SET_DUMPABLE, 0)


def run_uid() -> int:
    """A uid for one run, drawn afresh: no account has it, so nothing else runs as it."""
    import pwd
    import secrets

    while True:
        uid = FIRST_UID + secrets.randbelow(UID_RANGE)
        try:
            pwd.getpwuid(uid)
        except KeyError:
            return uid


def processes_of(uid: int) -> int:
    """How many tasks `uid` runs on this machine (the process limit counts them all)."""
    count = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}").st_uid == uid:
                    count += len(os.listdir(f"/proc/{entry}/task"))
            except OSError:
                continue
    return count
