"""The Linux calls that confinement needs and Python 3.11's os module lacks, through ctypes.

Imported by the grading process and by the process it forks to set up a zygote before exec, never by
a lean zygote: a process that has loaded ctypes lets its code read and write its own memory
(ctypes.memmove is not audited), so the zygotes that run engine exercises start as fresh
interpreters without it.
"""

from __future__ import annotations

import ctypes
import os
import platform
from pathlib import Path

CLONE_NEWNS, CLONE_NEWNET, CLONE_NEWUSER, CLONE_NEWPID = (
    0x00020000,
    0x40000000,
    0x10000000,
    0x20000000,
)
CLONE_NEWIPC = 0x08000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = (
    1,
    2,
    4,
    32,
    1 << 12,
    1 << 14,
    1 << 18,
)
MNT_DETACH = 2
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_NO_NEW_PRIVS, PR_SET_CHILD_SUBREAPER = 1, 4, 38, 36
PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2
PR_CAPBSET_DROP, PR_SET_KEEPCAPS = 24, 8
CAP_SETGID, CAP_SETUID = 6, 7
_ADDR_NO_RANDOMIZE, _PERSONALITY_QUERY = 0x0040000, 0xFFFFFFFF
#: syscalls without a libc wrapper, by architecture (x86_64, aarch64)
_NUMBERS = {
    "x86_64": {
        "pivot_root": 155,
        "landlock_create_ruleset": 444,
        "landlock_add_rule": 445,
        "landlock_restrict_self": 446,
    },
    "aarch64": {
        "pivot_root": 41,
        "landlock_create_ruleset": 444,
        "landlock_add_rule": 445,
        "landlock_restrict_self": 446,
    },
}
ARCH = {"arm64": "aarch64"}.get(platform.machine(), platform.machine())
NUMBERS = _NUMBERS.get(ARCH, {})

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def errno() -> int:
    return ctypes.get_errno()


def unshare(flags: int) -> bool:
    return bool(libc.unshare(flags) == 0)


def setns(fd: int, kind: int) -> bool:
    return bool(libc.setns(fd, kind) == 0)


def mount(
    source: bytes | None, target: str, fstype: bytes | None, flags: int, data: bytes | None = None
) -> bool:
    return bool(libc.mount(source, target.encode(), fstype, flags, data) == 0)


def umount(target: str, flags: int = MNT_DETACH) -> bool:
    return bool(libc.umount2(target.encode(), flags) == 0)


def pivot_root(new: bytes, old: bytes) -> bool:
    number = NUMBERS.get("pivot_root")
    return number is not None and libc.syscall(number, new, old) == 0


def prctl(option: int, arg: int = 0) -> bool:
    return bool(libc.prctl(option, ctypes.c_ulong(arg), 0, 0, 0) == 0)


def fixed_addresses() -> bool:
    """Turn address-space randomization off for this process and what it execs and forks
    (personality's ADDR_NO_RANDOMIZE); False where refused (a seccomp profile may allow only the
    default persona)."""
    current = int(libc.personality(ctypes.c_ulong(_PERSONALITY_QUERY)))
    return (
        current != -1 and int(libc.personality(ctypes.c_ulong(current | _ADDR_NO_RANDOMIZE))) != -1
    )


def syscall(name: str, *args: object) -> int:
    number = NUMBERS.get(name)
    if number is None:
        ctypes.set_errno(38)  # ENOSYS: not an architecture we know the number for
        return -1
    return int(libc.syscall(number, *args))


def map_ids(pid: int | str, uids: str, gids: str, *, deny_setgroups: bool) -> bool:
    """Write a user namespace's uid and gid maps ("inside outside count" lines); False where
    refused."""
    base = Path(f"/proc/{pid}")
    try:
        if deny_setgroups:
            (base / "setgroups").write_text("deny")
        (base / "uid_map").write_text(uids)
        (base / "gid_map").write_text(gids)
    except OSError:
        return False
    return True


def die_with_parent(signal_number: int, parent: int) -> None:
    """Get `signal_number` the moment the parent dies, even by SIGKILL; leave now if it already has.

    The setting survives exec, so a zygote set up this way dies with the grading process.
    """
    prctl(PR_SET_PDEATHSIG, signal_number)
    if os.getppid() != parent:
        os._exit(1)


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    ]


def drop_capabilities() -> bool:
    """Give up every capability, for good (bounding set, effective, permitted): root without
    powers."""
    for cap in range(64):
        libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)  # EINVAL past the kernel's last: fine
    return _capset(0)


def _capset(caps: int) -> bool:
    header = _CapHeader(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3
    data = (_CapData * 2)()
    data[0].effective = data[0].permitted = caps
    return bool(libc.capset(ctypes.byref(header), data) == 0)


def become_with_root_files(uid: int) -> None:
    """Take `uid` as every id of this process but the file-system ones, which stay root; no
    capability left.

    For a run where the interpreter's folders are closed to other users: the kernel's checks between
    processes (signals, rlimits, ptrace, priorities, pidfds, keyrings, IPC) see a user no other
    process has, while files are opened as root, which Landlock and seccomp then limit. Raise
    OSError if any step is refused.
    """
    for cap in range(64):
        libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)
    os.setgroups([])
    if not prctl(PR_SET_KEEPCAPS, 1):
        raise OSError("PR_SET_KEEPCAPS was refused")
    os.setresgid(uid, uid, uid)
    # the effective capabilities go; the permitted ones are kept for a moment
    os.setresuid(uid, uid, uid)
    setids = (1 << CAP_SETUID) | (1 << CAP_SETGID)
    if not _capset(setids):
        raise OSError("capset was refused")
    libc.setfsgid(0)
    libc.setfsuid(0)
    prctl(PR_SET_KEEPCAPS, 0)
    if not _capset(0) or libc.setfsuid(-1) != 0 or libc.setfsgid(-1) != 0 or os.geteuid() != uid:
        raise OSError("the run's ids could not be set")
