"""Confine a sandboxed child before student code runs: namespaces, hidden folders, its own user, limits.

As root (CI, a container): a new network namespace (no network), a new mount namespace in which the
folders that hold solutions, other students' work and reports are covered by empty tmpfs mounts and
/tmp, /var/tmp and /dev/shm are fresh and private, then a switch to an unprivileged uid of its own
(one per worker slot), so the child can neither read the grader's memory through /proc nor signal
it, and a process limit that counts only that uid. As another user these are tried through a user
namespace, where the kernel allows it, and otherwise left out: see `Confinement` for what held.
"""

from __future__ import annotations

import ctypes
import os
import pwd
import resource
import sys
from dataclasses import dataclass, field
from pathlib import Path

CLONE_NEWNS, CLONE_NEWNET, CLONE_NEWUSER = 0x00020000, 0x40000000, 0x10000000
MS_NOSUID, MS_NODEV, MS_BIND, MS_REC, MS_PRIVATE = 2, 4, 1 << 12, 1 << 14, 1 << 18
PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER = 4, 36
#: first uid handed to sandboxed children; slot k runs as FIRST_UID + k, an id no account uses
FIRST_UID = 70000
#: processes and threads one child may have at once (a fork bomb stops here)
MAX_PROCESSES = 64
SCRATCH = ("/tmp", "/var/tmp", "/dev/shm")

_libc = ctypes.CDLL(None, use_errno=True)


@dataclass(slots=True)
class Confinement:
    """What was achieved for one child; the rest is said in the README as best effort."""

    network_off: bool = False
    hidden: list[str] = field(default_factory=list)
    uid: int | None = None
    workdir: str = ""


def sandbox_uid(slot: int) -> int:
    """An unused uid for worker slot `slot`: no account has it, so nothing else runs as it."""
    uid = FIRST_UID + slot
    while _has_account(uid):
        uid += 1000
    return uid


def _has_account(uid: int) -> bool:
    try:
        pwd.getpwuid(uid)
    except KeyError:
        return False
    return True


def protect_grader() -> None:
    """Keep processes of the same user from reading this one's memory (/proc/<pid>/mem, environ).

    Matters where children run as the grader's own user; as root, they have their own uid anyway.
    """
    _libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)


def become_subreaper() -> None:
    """Orphans of a child come back to this process (not to init), so they can always be killed."""
    _libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def confine(workdir: str, hide: list[str], uid: int | None) -> Confinement:
    """Call in the child after the fork, before any student code; returns what held."""
    done = Confinement(workdir=workdir)
    root = os.geteuid() == 0
    if not root:
        # The grader made itself non-dumpable, which makes /proc/self/uid_map root's: undo it here,
        # where there is nothing to protect.
        _libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)
    if root:
        namespaces = _unshare(CLONE_NEWNS | CLONE_NEWNET)
    else:  # an unprivileged user may still own a user namespace, and so its own mounts and network
        namespaces = _unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET) and _map_self()
    if namespaces:
        done.network_off = True
        if _mount(None, "/", None, MS_REC | MS_PRIVATE):
            needed = _needed_folders()
            handles = {path: os.open(path, os.O_PATH | os.O_DIRECTORY) for path in needed}
            for blocked in _blocking_folders(needed, uid):  # /root, when Python lives in /root/.pyenv
                _mount(b"tmpfs", blocked, b"tmpfs", MS_NOSUID | MS_NODEV, b"size=1m,mode=755")
            for scratch in SCRATCH:
                if Path(scratch).is_dir():
                    _mount(b"tmpfs", scratch, b"tmpfs", MS_NOSUID | MS_NODEV, b"size=256m,mode=1777")
            for path, handle in handles.items():  # the interpreter and the grader, back where they were
                if not Path(path).is_dir():
                    os.makedirs(path, exist_ok=True)
                    _mount(f"/proc/self/fd/{handle}".encode(), path, None, MS_BIND | MS_REC)
                os.close(handle)
            # Last, so that no folder put back above can show what these cover.
            done.hidden = [path for path in hide if Path(path).is_dir() and _cover(path)]
            # The folder the grader made is now under a fresh /tmp: make the child's own there.
            done.workdir = workdir if Path(workdir).is_dir() else _fresh_workdir()
    if root and uid is not None:
        os.chown(done.workdir, uid, uid)
        resource.setrlimit(resource.RLIMIT_NPROC, (MAX_PROCESSES, MAX_PROCESSES))
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
        done.uid = uid
    else:
        mine = _processes_of(os.getuid())  # the limit counts all of this user's processes
        resource.setrlimit(resource.RLIMIT_NPROC, (mine + MAX_PROCESSES, mine + MAX_PROCESSES))
    return done


def _needed_folders() -> list[str]:
    """Where the interpreter, the installed packages and the grader live: the child imports from them."""
    import grader
    import reference

    candidates = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
                  *(p for p in sys.path if p), *(str(Path(m.__file__).parent) for m in (grader, reference)
                                                  if m.__file__)}
    real = sorted({os.path.realpath(p) for p in candidates if os.path.isdir(p)})
    return [p for p in real if not any(p != q and p.startswith(q + "/") for q in real)]


def _blocking_folders(needed: list[str], uid: int | None) -> list[str]:
    """The outermost folders the child's user could not pass through on the way to a needed one."""
    if uid is None:
        return []
    blocked: set[str] = set()
    for path in needed:
        parts = Path(path).parts
        for depth in range(2, len(parts) + 1):
            folder = str(Path(*parts[:depth]))
            info = os.stat(folder)
            if not info.st_mode & 0o001 and info.st_uid != uid:
                blocked.add(folder)
                break
    return sorted(b for b in blocked if not any(b != c and b.startswith(c + "/") for c in blocked))


def _fresh_workdir() -> str:
    path = "/tmp/submission"
    os.mkdir(path, 0o700)
    return path


def _cover(path: str) -> bool:
    return _mount(b"tmpfs", path, b"tmpfs", MS_NOSUID | MS_NODEV, b"size=1m,mode=000")


def _unshare(flags: int) -> bool:
    return bool(_libc.unshare(flags) == 0)


def _mount(source: bytes | None, target: str, fstype: bytes | None, flags: int, data: bytes | None = None) -> bool:
    return bool(_libc.mount(source, target.encode(), fstype, flags, data) == 0)


def _map_self() -> bool:
    """In a new user namespace, map our own uid and gid to themselves, or files cannot be created."""
    uid, gid = os.getuid(), os.getgid()
    try:
        Path("/proc/self/setgroups").write_text("deny")
        Path("/proc/self/uid_map").write_text(f"{uid} {uid} 1")
        Path("/proc/self/gid_map").write_text(f"{gid} {gid} 1")
    except OSError:
        return False
    return True


def _processes_of(uid: int) -> int:
    count = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}").st_uid == uid:
                    count += len(os.listdir(f"/proc/{entry}/task"))  # threads count towards the limit too
            except OSError:
                continue
    return count


def reap_orphans() -> None:
    """Kill and collect every child of this (subreaper) process but the ones it is waiting for."""
    for _ in range(100):
        orphans = _children_of(os.getpid())
        if not orphans:
            return
        for pid in orphans:
            try:
                os.kill(pid, 9)
            except ProcessLookupError:
                pass
        for pid in orphans:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass


def _children_of(parent: int) -> list[int]:
    children = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == parent:
                children.append(int(entry))
    return children
