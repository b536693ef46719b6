"""Landlock: limit a process (and all it starts) to the folders it is given, without any privilege.

Where namespaces cannot be had (a container whose seccomp profile refuses them), Landlock still
keeps a submission from reading the exercises' solutions, other students' work and anything else not
listed, and, from its ABI 4, from opening TCP connections. A zygote's layer says what all its runs
may read; each run adds a layer of its own (`confine_run`) that allows writes only in its own folder
and, from ABI 6, keeps its signals and abstract Unix sockets inside its own domain, so not even its
zygote is reached. Once applied, nothing undoes a layer.
"""

from __future__ import annotations

import ctypes
import os
import stat
from collections.abc import Sequence

from grader.run.confine import syscalls, tree

_CREATE_VERSION = 1
_RULE_PATH_BENEATH = 1
EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
#: what each ABI can refuse on files: 13 rights in ABI 1, then refer (2), truncate (3), ioctl on
#: devices (5)
_FS_BY_ABI = {
    1: (1 << 13) - 1,
    2: (1 << 14) - 1,
    3: (1 << 15) - 1,
    4: (1 << 15) - 1,
    5: (1 << 16) - 1,
}
# the rights a rule on a file may hold
_FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | (1 << 14) | (1 << 15)
_NET_TCP = (1 << 0) | (1 << 1)  # bind and connect (ABI 4)
_SCOPES = (1 << 0) | (1 << 1)  # abstract Unix sockets and signals outside the domain (ABI 6)
READ = EXECUTE | READ_FILE | READ_DIR
#: every right that changes the file tree: writing, truncating, making, removing, linking or
#: renaming
WRITES = WRITE_FILE | (((1 << 13) - 1) & ~((1 << 4) - 1)) | (1 << 13) | (1 << 14)


class _Ruleset(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def abi() -> int:
    """The kernel's Landlock ABI version; 0 where it has none (too old, or not among the LSMs)."""
    version = syscalls.syscall(
        "landlock_create_ruleset", None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_VERSION)
    )
    return max(version, 0)


def restrict(read: Sequence[str], write: Sequence[str], list_only: Sequence[str] = ()) -> int:
    """Allow only reading under `read`, anything under `write`, and listing (not reading) under
    `list_only`; return the ABI used, 0 where refused.

    Paths that do not exist are left out. Sets no_new_privs, which Landlock requires.
    """
    version = abi()
    if version == 0:
        return 0
    handled = _FS_BY_ABI.get(version, _FS_BY_ABI[5])
    attr = _Ruleset(handled, _NET_TCP if version >= 4 else 0, _SCOPES if version >= 6 else 0)
    size = 8 if version < 4 else 16 if version < 6 else 24
    fd = syscalls.syscall(
        "landlock_create_ruleset", ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0)
    )
    if fd < 0:
        return 0
    try:
        for paths, rights in ((read, READ), (write, handled), (list_only, READ_DIR)):
            for path in paths:
                if not _add(fd, path, rights & handled):
                    continue
        if not syscalls.prctl(syscalls.PR_SET_NO_NEW_PRIVS, 1):
            return 0
        if syscalls.syscall("landlock_restrict_self", ctypes.c_int(fd), ctypes.c_uint32(0)) != 0:
            return 0
    finally:
        os.close(fd)
    return version


def confine_run(folder: str, devices: Sequence[str] = ("/dev/null",)) -> int:
    """A layer for one run: writes only under `folder` (and to `devices`), signals and abstract
    sockets only inside the run, from ABI 6; reads stay as the zygote's layer allows. The ABI used,
    0 where refused."""
    version = abi()
    if version == 0:
        return 0
    handled = _FS_BY_ABI.get(version, _FS_BY_ABI[5]) & WRITES
    attr = _Ruleset(handled, 0, _SCOPES if version >= 6 else 0)
    size = 8 if version < 4 else 16 if version < 6 else 24
    fd = syscalls.syscall(
        "landlock_create_ruleset", ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0)
    )
    if fd < 0:
        return 0
    try:
        if not _add(fd, folder, handled):
            return 0
        for device in devices:
            _add(fd, device, handled & (WRITE_FILE | (1 << 14)))
        if not syscalls.prctl(syscalls.PR_SET_NO_NEW_PRIVS, 1):
            return 0
        if syscalls.syscall("landlock_restrict_self", ctypes.c_int(fd), ctypes.c_uint32(0)) != 0:
            return 0
    finally:
        os.close(fd)
    return version


def tree_rules(plan: tree.Layout, *, files_as_root: bool) -> tuple[list[str], list[str]]:
    """What a zygote's layer lets its runs read, and only list, for the tree `plan` would build."""
    # A run that opens files as root reads whatever Landlock lets it, whatever the file's mode:
    # /etc's files closed to other users (shadow, SSH host keys, munge's key, a course's secret put
    # there) are left out.
    closed = _closed_to_others("/etc") if files_as_root else []
    reads, listed = _folder_rules(plan, ["/etc"] if closed else [], closed)
    # /proc shows what a tree's /proc holds: cpuinfo (torch's cpuinfo reads it) and the GPU driver's
    # entries.
    system = [f for f in tree.SYSTEM if not (closed and f == "/etc")]
    read = [
        *system,
        *reads,
        "/sys",
        "/dev/null",
        "/dev/zero",
        "/dev/urandom",
        "/dev/random",
        "/proc/cpuinfo",
        *(["/proc/driver/nvidia"] if plan.gpu_proc else []),
    ]
    return read, listed


def _closed_to_others(folder: str) -> list[str]:
    """What under `folder` another user could not read (a folder it could not list or enter: not
    entered)."""
    found: list[str] = []
    for root, folders, files in os.walk(folder):
        for name in [*folders, *files]:
            path = os.path.join(root, name)
            try:
                mode = os.lstat(path).st_mode
            except OSError:
                continue
            need = 0o005 if stat.S_ISDIR(mode) else 0o004
            if not stat.S_ISLNK(mode) and mode & need != need:
                found.append(path)
        folders[:] = [f for f in folders if os.path.join(root, f) not in found]
    return found


def _folder_rules(
    plan: tree.Layout, extra: Sequence[str] = (), closed: Sequence[str] = ()
) -> tuple[list[str], list[str]]:
    """The tree's folders (and `extra` ones) as Landlock rules, which only allow: a folder holding a
    cover or a `closed` path is read child by child, and only listed itself (the interpreter lists
    the folders it imports from)."""
    # ctypes stays readable: a landlocked zygote needs it to give each child its seccomp filter (so
    # in this mode a submission could reach its own memory; Landlock, seccomp and the uid hold
    # regardless).
    concealed = [*plan.covers, *closed]
    reads: list[str] = []
    listed: list[str] = []

    def add(path: str) -> None:
        if any(h == path for h in concealed):
            return
        if any(h.startswith(path.rstrip("/") + "/") for h in concealed) and os.path.isdir(path):
            listed.append(path)
            for entry in os.scandir(path):
                add(entry.path)
        else:
            reads.append(path)

    for path in [*extra, *plan.binds, *plan.rebinds]:
        add(path)
    # The grader package is found on PYTHONPATH, its parent: which the interpreter must be able to
    # list.
    listed.append(os.path.dirname(tree.grader_folder()))
    return reads, listed


def _add(ruleset: int, path: str, rights: int) -> bool:
    try:
        handle = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        if not os.path.isdir(path):
            rights &= _FILE_RIGHTS
        rule = _PathBeneath(rights, handle)
        return (
            syscalls.syscall(
                "landlock_add_rule",
                ctypes.c_int(ruleset),
                ctypes.c_int(_RULE_PATH_BENEATH),
                ctypes.byref(rule),
                ctypes.c_uint32(0),
            )
            == 0
        )
    finally:
        os.close(handle)
