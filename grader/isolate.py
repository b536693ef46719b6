"""Confine a sandboxed child before student code runs: namespaces, its own file tree and user, limits.

As root (CI, a container): a new network namespace (no network) and a new mount namespace whose root
is a fresh tmpfs holding only what a child needs: the system folders (/usr, /lib, /etc, /dev, /proc,
/sys), the interpreter with its packages, and the grader package (never `reference`). Everything else (other
checkouts of the exercises, other students' work, reports, home folders) is simply not there, and the
old root is detached, so it cannot be mounted back. /tmp, /var/tmp and /dev/shm are fresh and private.
The zygote makes the namespaces and the tree once for itself (`enclose`); each child then only gets
a mount namespace of its own with fresh scratch folders.
Then a switch to an unprivileged uid of its own (one per worker slot), so the child can neither read
the grader's memory through /proc nor signal it, and a process limit that counts only that uid. As
another user these are tried through a user namespace, where the kernel allows it, and otherwise left
out (the README says what holds then)."""

from __future__ import annotations

import ctypes
import functools
import os
import platform
import pwd
import resource
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

CLONE_NEWNS, CLONE_NEWNET, CLONE_NEWUSER = 0x00020000, 0x40000000, 0x10000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 1, 2, 4, 32, 1 << 12, 1 << 14, 1 << 18
MNT_DETACH = 2
#: pivot_root has no libc wrapper; its number differs between the two architectures we run on
SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "arm64": 41}.get(platform.machine())
#: what a child's file tree holds besides the interpreter and the grader: enough for Python and torch
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER = 1, 4, 36
#: first uid handed to sandboxed children; slot k runs as FIRST_UID + k, an id no account uses
FIRST_UID = 70000
#: processes and threads one child may have at once (a fork bomb stops here)
MAX_PROCESSES = 64
SCRATCH = ("/tmp", "/var/tmp", "/dev/shm")

_libc = ctypes.CDLL(None, use_errno=True)
#: read on import: a zygote clears its environment before its children's file tree is worked out
_LIBRARY_PATH = os.environ.get("LD_LIBRARY_PATH", "")


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


def die_with(parent: int) -> None:
    """Be killed the moment `parent` (this process's parent) dies, even by SIGKILL.

    A grader killed with -9 (a CI timeout) then leaves no zygote and no looping child behind. The kernel
    clears this on a change of uid, so a child calls it after confine(). Student code could clear it
    again; the CPU limit still ends such a child.
    """
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # it died before the line above
        os._exit(1)


def confine(workdir: str, hide: list[str], uid: int | None) -> str:
    """Call in the child after the fork, before any student code; returns the folder to work in.

    What cannot be had here (no namespaces for this user, no pivot_root) is left out, as the README says.
    """
    root = os.geteuid() == 0
    if not root:
        # The grader made itself non-dumpable, which makes /proc/self/uid_map root's: undo it here,
        # where there is nothing to protect.
        _libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)
    if root and _enclosed == (tuple(hide), uid):
        _fresh_scratch(_needed_folders(tuple(hide)))
        confined = True
    elif root:
        confined = _unshare(CLONE_NEWNS | CLONE_NEWNET) and _build_tree(hide, uid)
    else:  # an unprivileged user may still own a user namespace, and so its own mounts and network
        # Read before the unshare: inside the new namespace they read as nobody until they are mapped.
        outside = os.getuid(), os.getgid()
        confined = _unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET) and _map_self(*outside) \
            and _build_tree(hide, uid)
    if confined and not Path(workdir).is_dir():  # the folder the grader made is under the fresh /tmp now
        workdir = _fresh_workdir()
    if root and uid is not None:
        os.chown(workdir, uid, uid)
        resource.setrlimit(resource.RLIMIT_NPROC, (MAX_PROCESSES, MAX_PROCESSES))
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
    else:
        mine = _processes_of(os.getuid())  # the limit counts all of this user's processes
        resource.setrlimit(resource.RLIMIT_NPROC, (mine + MAX_PROCESSES, mine + MAX_PROCESSES))
    return workdir


#: the (hide, uid) this process's file tree was confined for by `enclose`; None: not confined
_enclosed: tuple[tuple[str, ...], int | None] | None = None
#: `enclose` has tried: whatever came of it, a zygote builds its tree at most once
_enclose_tried = False


def enclose(hide: Sequence[str], uid: int | None) -> None:
    """In the zygote, before a fork: do once here what every child's confine() would do the same way.

    As root, the zygote gets the mount and network namespaces and the file tree a child would build
    for itself (the same tree, covers and all); each child then only needs a mount namespace of its
    own with fresh scratch folders, about a third of the work, and no network namespace to make and
    tear down. Children run one at a time and leave nothing behind (their sockets and mounts die with
    them), so they share nothing by it. A child for another `hide` or `uid` builds its own, as before.
    Elsewhere, and every time, this works out the folders confine() needs, so that children inherit
    them instead of resolving the same paths again.
    """
    global _enclosed, _enclose_tried
    _needed_folders(tuple(hide))
    _needed_folders()
    _reference_folder()
    if _enclose_tried:
        return
    _enclose_tried = True
    if os.geteuid() == 0 and _unshare(CLONE_NEWNS | CLONE_NEWNET):
        # Whatever happens next, this process is in namespaces of its own: a tree half built here is
        # only this zygote's, and each child still confines itself in full.
        try:
            if _build_tree(hide, uid):
                _enclosed = (tuple(hide), uid)
        except OSError:
            pass


def _build_tree(hide: Sequence[str], uid: int | None) -> bool:
    """In a new mount namespace: the file tree a child sees; False where mounts are refused."""
    if not _mount(None, "/", None, MS_REC | MS_PRIVATE):
        return False
    reference = _reference_folder()
    try:
        whitelisted = _new_root(_needed_folders(tuple(hide)))
    except OSError:  # a folder that could not be made or bound
        whitelisted = False
    if not whitelisted:  # no pivot_root here: cover what must stay hidden in the tree as it is
        _cover_in_place(uid)
    # Last, so that no folder put back above can show what these cover.
    for path in [*hide, reference] if reference else hide:
        if Path(path).is_dir():
            _cover(path)
    return True


def _fresh_scratch(needed: Sequence[str]) -> None:
    """A child of an enclosed zygote: its own mount namespace, with empty scratch folders of its own.

    A needed folder inside one (a checkout or a virtual environment under /tmp) is put back.
    """
    if not _unshare(CLONE_NEWNS):
        raise OSError("cannot make the child's own mount namespace; its /tmp would be shared")
    for scratch in SCRATCH:
        if not Path(scratch).is_dir():
            continue
        handles = {path: os.open(path, os.O_PATH | os.O_DIRECTORY) for path in needed
                   if path.startswith(scratch + "/")}
        try:
            if not _scratch(scratch):
                raise OSError(f"cannot mount a fresh {scratch} for the child")
            for path, handle in handles.items():
                _bind(handle, path, read_only=True)
        finally:
            for handle in handles.values():
                os.close(handle)


@functools.cache
def _needed_folders(hide: tuple[str, ...] = ()) -> tuple[str, ...]:
    """Where the interpreter, its installed packages and the grader's child side live.

    Only folders on sys.path that belong to the interpreter count: a checkout with an editable install
    (or the zygote's PYTHONPATH) puts the repository itself there, exercises and all, and of that the
    child needs the grader package alone. Never the reference engine: it is a solution.
    """
    import grader

    prefixes = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix)}
    packages = os.path.realpath(str(Path(grader.__file__ or "").parent))
    entries = {os.path.realpath(p) for p in sys.path if p}
    # Where a GPU image keeps the driver's libraries (/usr/local/nvidia/lib64, say), torch finds CUDA.
    libraries = {os.path.realpath(p) for p in _LIBRARY_PATH.split(":") if p}
    kept = {p for p in entries if any(p == q or p.startswith(q + "/") for q in prefixes)
            or Path(p).name in ("site-packages", "dist-packages")}
    hidden = [os.path.realpath(h) for h in hide]
    real = {p for p in prefixes | kept | libraries if os.path.isdir(p)
            and not any(h == p or h.startswith(p + "/") for h in hidden)} | {packages}
    return tuple(sorted(p for p in real if not any(p != q and p.startswith(q + "/") for q in real)))


@functools.cache
def _reference_folder() -> str | None:
    """The reference engine's package, wherever it is installed: covered in every child."""
    import importlib.util

    spec = importlib.util.find_spec("reference")
    locations = list(spec.submodule_search_locations or []) if spec else []
    return os.path.realpath(locations[0]) if locations else None


def _new_root(needed: Sequence[str]) -> bool:
    """Make a tmpfs holding only the system folders and `needed` the root; False if the kernel says no."""
    if SYS_PIVOT_ROOT is None:
        return False
    handles = {path: os.open(path, os.O_PATH | os.O_DIRECTORY) for path in [*SYSTEM, *needed, "/dev", "/proc", "/sys"]
               if os.path.isdir(path) and not os.path.islink(path)}
    try:
        # The new root is built on /tmp, which is covered anyway; every source was opened above.
        new = "/tmp"
        if not _mount(b"tmpfs", new, b"tmpfs", MS_NOSUID | MS_NODEV, b"size=1m,mode=755"):
            return False
        for folder in SYSTEM:
            if os.path.islink(folder):
                os.symlink(os.readlink(folder), new + folder)
            elif folder in handles:
                _bind(handles[folder], new + folder, read_only=True)
        for scratch in SCRATCH[:2]:
            os.makedirs(new + scratch, exist_ok=True)
            _scratch(new + scratch)
        for folder in ("/dev", "/proc", "/sys"):
            if folder in handles:
                _bind(handles[folder], new + folder, read_only=folder == "/sys")
        if os.path.isdir(new + "/dev/shm"):
            _scratch(new + "/dev/shm")
        for path in needed:
            if not os.path.exists(new + path):  # not already there inside a system folder
                _bind(handles[path], new + path, read_only=True)
        os.mkdir(new + "/.old")
        os.chdir(new)
        if _libc.syscall(SYS_PIVOT_ROOT, b".", b".old") != 0:
            return False
        os.chdir("/")
        _libc.umount2(b"/.old", MNT_DETACH)  # the old tree is gone from this namespace for good
        os.rmdir("/.old")
        return True
    finally:
        for handle in handles.values():
            os.close(handle)


def _bind(handle: int, target: str, *, read_only: bool) -> None:
    os.makedirs(target, exist_ok=True)
    if _mount(f"/proc/self/fd/{handle}".encode(), target, None, MS_BIND | MS_REC) and read_only:
        # A bind mount takes its own flags only on a remount; where the kernel refuses (flags locked
        # in a user namespace), the files stay as their owners' modes allow.
        _mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)


def _cover_in_place(uid: int | None) -> None:
    """Without a new root: fresh scratch folders, with the interpreter's folders put back if covered."""
    needed = _needed_folders()
    handles = {path: os.open(path, os.O_PATH | os.O_DIRECTORY) for path in needed}
    for blocked in _blocking_folders(needed, uid):  # /root, when Python lives in /root/.pyenv
        _mount(b"tmpfs", blocked, b"tmpfs", MS_NOSUID | MS_NODEV, b"size=1m,mode=755")
    for scratch in SCRATCH:
        if Path(scratch).is_dir():
            _scratch(scratch)
    for path, handle in handles.items():  # the interpreter and the grader, back where they were
        if not Path(path).is_dir():
            os.makedirs(path, exist_ok=True)
            _mount(f"/proc/self/fd/{handle}".encode(), path, None, MS_BIND | MS_REC)
        os.close(handle)


def _blocking_folders(needed: Sequence[str], uid: int | None) -> list[str]:
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


def _scratch(path: str) -> bool:
    """An empty tmpfs on `path` that anyone may write to, as /tmp is."""
    return _mount(b"tmpfs", path, b"tmpfs", MS_NOSUID | MS_NODEV, b"size=256m,mode=1777")


def _cover(path: str) -> None:
    _mount(b"tmpfs", path, b"tmpfs", MS_NOSUID | MS_NODEV, b"size=1m,mode=000")


def _unshare(flags: int) -> bool:
    return bool(_libc.unshare(flags) == 0)


def _mount(source: bytes | None, target: str, fstype: bytes | None, flags: int, data: bytes | None = None) -> bool:
    return bool(_libc.mount(source, target.encode(), fstype, flags, data) == 0)


def _map_self(uid: int, gid: int) -> bool:
    """In a new user namespace, map our own uid and gid (as they were outside) to themselves."""
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
    try:  # the kernel's own list (CONFIG_PROC_CHILDREN): no scan of every process on the machine
        return [int(pid) for task in os.listdir(f"/proc/{parent}/task")
                for pid in Path(f"/proc/{parent}/task/{task}/children").read_text().split()]
    except FileNotFoundError:
        pass
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
