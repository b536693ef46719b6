"""seccomp filters, for where no namespace can be had: no network, no new processes, no signals to
others.

A filter is a short classic-BPF program the kernel runs on every system call; once installed (after
PR_SET_NO_NEW_PRIVS) it holds for the process and everything it starts, and nothing undoes it. Rules
are (syscall, condition on one argument, errno); everything else is allowed.
"""

from __future__ import annotations

import ctypes
import errno as errnos
import os
from collections.abc import Sequence
from dataclasses import dataclass

from grader.run.confine import syscalls

_LD_ABS_W, _JEQ, _JSET, _RET = 0x20, 0x15, 0x45, 0x06
ALLOW, KILL = 0x7FFF0000, 0x80000000
_ARCHES = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
_X32_BIT = 0x40000000

#: syscall numbers by architecture; a name missing from one (fork on aarch64) has no rule there
NUMBERS: dict[str, dict[str, int]] = {
    "x86_64": {
        "socket": 41,
        "clone": 56,
        "fork": 57,
        "vfork": 58,
        "kill": 62,
        "ptrace": 101,
        "tkill": 200,
        "tgkill": 234,
        "rt_sigqueueinfo": 129,
        "rt_tgsigqueueinfo": 297,
        "process_vm_readv": 310,
        "process_vm_writev": 311,
        "io_uring_setup": 425,
        "io_uring_enter": 426,
        "io_uring_register": 427,
        "clone3": 435,
        "pidfd_send_signal": 424,
        "keyctl": 250,
        "bpf": 321,
        "perf_event_open": 298,
        "userfaultfd": 323,
        "unshare": 272,
        "setns": 308,
        "mount": 165,
        "landlock_create_ruleset": 444,
        "ioctl": 16,
        "fcntl": 72,
        "truncate": 76,
        "chmod": 90,
        "fchmod": 91,
        "fchmodat": 268,
        "fchmodat2": 452,
        "utime": 132,
        "utimes": 235,
        "futimesat": 261,
        "utimensat": 280,
        "setxattr": 188,
        "lsetxattr": 189,
        "fsetxattr": 190,
        "removexattr": 197,
        "lremovexattr": 198,
        "fremovexattr": 199,
        "setxattrat": 463,
        "removexattrat": 466,
        "prlimit64": 302,
        "pidfd_open": 434,
        "pidfd_getfd": 438,
        "kcmp": 312,
        "process_madvise": 440,
        "process_mrelease": 448,
        "ioprio_set": 251,
        "migrate_pages": 256,
        "move_pages": 279,
        "sched_setparam": 142,
        "sched_setscheduler": 144,
        "sched_setaffinity": 203,
        "sched_setattr": 314,
        "setpriority": 141,
        "add_key": 248,
        "request_key": 249,
        "syslog": 103,
        "shmget": 29,
        "shmat": 30,
        "shmctl": 31,
        "shmdt": 67,
        "semget": 64,
        "semop": 65,
        "semctl": 66,
        "semtimedop": 220,
        "msgget": 68,
        "msgsnd": 69,
        "msgrcv": 70,
        "msgctl": 71,
        "mq_open": 240,
        "mq_unlink": 241,
        "mq_timedsend": 242,
        "mq_timedreceive": 243,
        "mq_notify": 244,
        "mq_getsetattr": 245,
        "open": 2,
        "openat": 257,
        "creat": 85,
        "mknod": 133,
        "mknodat": 259,
        "openat2": 437,
    },
    "aarch64": {
        "socket": 198,
        "clone": 220,
        "kill": 129,
        "ptrace": 117,
        "tkill": 130,
        "tgkill": 131,
        "rt_sigqueueinfo": 138,
        "rt_tgsigqueueinfo": 240,
        "process_vm_readv": 270,
        "process_vm_writev": 271,
        "io_uring_setup": 425,
        "io_uring_enter": 426,
        "io_uring_register": 427,
        "clone3": 435,
        "pidfd_send_signal": 424,
        "keyctl": 219,
        "bpf": 280,
        "perf_event_open": 241,
        "userfaultfd": 282,
        "unshare": 97,
        "setns": 268,
        "mount": 40,
        "landlock_create_ruleset": 444,
        "ioctl": 29,
        "fcntl": 25,
        "truncate": 45,
        "fchmod": 52,
        "fchmodat": 53,
        "fchmodat2": 452,
        "utimensat": 88,
        "setxattr": 5,
        "lsetxattr": 6,
        "fsetxattr": 7,
        "removexattr": 14,
        "lremovexattr": 15,
        "fremovexattr": 16,
        "setxattrat": 463,
        "removexattrat": 466,
        "prlimit64": 261,
        "pidfd_open": 434,
        "pidfd_getfd": 438,
        "kcmp": 272,
        "process_madvise": 440,
        "process_mrelease": 448,
        "ioprio_set": 30,
        "migrate_pages": 238,
        "move_pages": 239,
        "sched_setparam": 118,
        "sched_setscheduler": 119,
        "sched_setaffinity": 122,
        "sched_setattr": 274,
        "setpriority": 140,
        "add_key": 217,
        "request_key": 218,
        "syslog": 116,
        "shmget": 194,
        "shmat": 196,
        "shmctl": 195,
        "shmdt": 197,
        "semget": 190,
        "semop": 193,
        "semctl": 191,
        "semtimedop": 192,
        "msgget": 186,
        "msgsnd": 189,
        "msgrcv": 188,
        "msgctl": 187,
        "mq_open": 180,
        "mq_unlink": 181,
        "mq_timedsend": 182,
        "mq_timedreceive": 183,
        "mq_notify": 184,
        "mq_getsetattr": 185,
        "openat": 56,
        "mknodat": 33,
        "openat2": 437,
    },
}
CLONE_THREAD = 0x00010000
#: every namespace flag of clone(2) and unshare(2)
NAMESPACE_FLAGS = 0x7E020000


#: fcntl(2) commands that make the kernel signal a process chosen by the caller, or hold others'
#: opens back
F_SETOWN, F_SETSIG, F_SETOWN_EX, F_SETLEASE = 8, 10, 15, 1024
#: ioctl(2) requests that do the same (FIOSETOWN, SIOCSPGRP), or set a file's flags as its owner may
SIGNAL_OWNER_IOCTLS = (0x8901, 0x8902)
# FS_IOC_SETFLAGS (and its 32-bit form), FSSETXATTR
FILE_FLAG_IOCTLS = (0x40086602, 0x40046602, 0x401C5820)


@dataclass(frozen=True, slots=True)
class Rule:
    """Refuse `syscall` with `error`; only where argument `arg`'s low 32 bits are none of `unless`
    (or, with `unless_bits`, carry none of those bits), or are one of `only`, when any is given."""

    syscall: str
    error: int = errnos.EPERM
    arg: int = 0
    unless: tuple[int, ...] = ()
    unless_bits: int = 0
    only_bits: int = 0  # refuse only where these bits are set in the argument
    only: tuple[int, ...] = ()  # refuse only where the argument is one of these


class _SockFilter(ctypes.Structure):
    _fields_ = [
        ("code", ctypes.c_ushort),
        ("jt", ctypes.c_ubyte),
        ("jf", ctypes.c_ubyte),
        ("k", ctypes.c_uint),
    ]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter))]


def _arg_low(index: int) -> int:
    return 16 + 8 * index  # seccomp_data.args[index], little-endian low word


def program(rules: Sequence[Rule], arch: str = syscalls.ARCH) -> list[tuple[int, int, int, int]]:
    """The BPF instructions for `rules`: (code, jump if true, jump if false, k)."""
    numbers = NUMBERS[arch]
    code: list[tuple[int, int, int, int]] = [
        # a foreign ABI: refuse outright
        (_LD_ABS_W, 0, 0, 4),
        (_JEQ, 1, 0, _ARCHES[arch]),
        (_RET, 0, 0, KILL),
        (_LD_ABS_W, 0, 0, 0),
    ]
    if arch == "x86_64":
        code += [(_JSET, 0, 1, _X32_BIT), (_RET, 0, 0, KILL)]
    for rule in rules:
        if rule.syscall not in numbers:
            continue
        refuse = (_RET, 0, 0, 0x00050000 | (rule.error & 0xFFFF))
        body: list[tuple[int, int, int, int]] = []
        if rule.unless or rule.unless_bits or rule.only_bits or rule.only:
            body.append((_LD_ABS_W, 0, 0, _arg_low(rule.arg)))
            # equal: on to the refusal, past the others and the allow
            for i, value in enumerate(rule.only):
                body.append((_JEQ, len(rule.only) - i, 0, value & 0xFFFFFFFF))
            if rule.only:
                body.append((_RET, 0, 0, ALLOW))
            if rule.unless_bits:  # bits set: allowed
                body.append((_JSET, 0, 1, rule.unless_bits))
                body.append((_RET, 0, 0, ALLOW))
            if rule.only_bits:  # bits clear: allowed
                body.append((_JSET, 1, 0, rule.only_bits))
                body.append((_RET, 0, 0, ALLOW))
            for value in rule.unless:
                body.append((_JEQ, 0, 1, value & 0xFFFFFFFF))
                body.append((_RET, 0, 0, ALLOW))
        body.append(refuse)
        # Skip the body unless the call is this rule's syscall; every body ends in a return, so the
        # accumulator still holds the syscall number for the next rule.
        code.append((_JEQ, 0, len(body), numbers[rule.syscall]))
        code += body
    code.append((_RET, 0, 0, ALLOW))
    return code


def install(rules: Sequence[Rule]) -> bool:
    """Install the filter on this process and all it starts; False where the kernel refuses."""
    if syscalls.ARCH not in NUMBERS:
        return False
    instructions = program(rules)
    array = (_SockFilter * len(instructions))(*(_SockFilter(*i) for i in instructions))
    fprog = _SockFprog(len(instructions), ctypes.cast(array, ctypes.POINTER(_SockFilter)))
    if not syscalls.prctl(syscalls.PR_SET_NO_NEW_PRIVS, 1):
        return False
    return bool(
        syscalls.libc.prctl(
            syscalls.PR_SET_SECCOMP, syscalls.SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0
        )
        == 0
    )


def confined_child_rules(pid: int | None = None) -> list[Rule]:
    """A sandboxed child with no namespaces around it: no sockets (socketpair only: a pair reaches
    nothing else), no new processes (threads only), no tracing, reading or steering of other
    processes, signals only to itself, and nothing that changes a file's mode, times or attributes,
    which its owner may do whatever Landlock allows (a run keeps root for files where the
    interpreter is closed to other users)."""
    me = os.getpid() if pid is None else pid
    return [
        # Landlock does not govern connect(): a Unix socket would reach any host socket the run's
        # user may (a Docker socket, as root). Abstract ones are scoped from ABI 6; pathname ones
        # never.
        Rule("socket", errnos.EACCES),
        Rule("fcntl", errnos.EPERM, 1, only=(F_SETOWN, F_SETSIG, F_SETOWN_EX, F_SETLEASE)),
        Rule("ioctl", errnos.EPERM, 1, only=SIGNAL_OWNER_IOCTLS + FILE_FLAG_IOCTLS),
        *(Rule(name) for name in _OTHERS_FILES),
        *(Rule(name, errnos.EPERM, 0, unless=(0, me)) for name in _SELF_ONLY),
        *(Rule(name) for name in _OTHER_PROCESSES),
        *(Rule(name, errnos.ENOSYS) for name in _SHARED_IPC),
        Rule("io_uring_setup", errnos.ENOSYS),
        Rule("io_uring_enter", errnos.ENOSYS),
        Rule("io_uring_register", errnos.ENOSYS),
        Rule("clone", errnos.EPERM, 0, unless_bits=CLONE_THREAD),
        # libc then falls back to clone, whose flags a filter can read
        Rule("clone3", errnos.ENOSYS),
        Rule("fork"),
        Rule("vfork"),
        Rule("kill", errnos.EPERM, 0, unless=(0, me, -me)),
        Rule("tkill", errnos.EPERM, 0, unless=(me,)),
        Rule("tgkill", errnos.EPERM, 0, unless=(me,)),
        Rule("rt_sigqueueinfo", errnos.EPERM, 0, unless=(me,)),
        Rule("rt_tgsigqueueinfo", errnos.EPERM, 0, unless=(me,)),
        Rule("pidfd_send_signal"),
        Rule("ptrace"),
        Rule("process_vm_readv"),
        Rule("process_vm_writev"),
        Rule("keyctl"),
        Rule("bpf"),
        Rule("perf_event_open"),
        Rule("userfaultfd"),
        Rule("unshare"),
        Rule("setns"),
        Rule("mount"),
        # No set-uid or set-gid file made as root: its mode is the only place those bits can come
        # from now.
        Rule("open", errnos.EPERM, 2, only_bits=_SET_ID),
        Rule("openat", errnos.EPERM, 3, only_bits=_SET_ID),
        Rule("creat", errnos.EPERM, 1, only_bits=_SET_ID),
        Rule("mknod", errnos.EPERM, 1, only_bits=_SET_ID),
        Rule("mknodat", errnos.EPERM, 2, only_bits=_SET_ID),
        Rule("openat2", errnos.ENOSYS),
    ]


_SET_ID = 0o6000  # S_ISUID | S_ISGID


#: what changes a file's mode, times or extended attributes, or truncates it by name (which Landlock
#: governs only from ABI 3): its owner may, whatever Landlock says
_OTHERS_FILES = (
    "chmod",
    "fchmod",
    "fchmodat",
    "fchmodat2",
    "utime",
    "utimes",
    "futimesat",
    "utimensat",
    "setxattr",
    "lsetxattr",
    "fsetxattr",
    "removexattr",
    "lremovexattr",
    "fremovexattr",
    "setxattrat",
    "removexattrat",
    "truncate",
)
#: calls on a process by pid, allowed on the run itself (0 or its pid)
_SELF_ONLY = (
    "prlimit64",
    "sched_setparam",
    "sched_setscheduler",
    "sched_setaffinity",
    "sched_setattr",
    "move_pages",
    "migrate_pages",
)
#: calls that reach another process: its descriptors, its memory, its priority, the kernel's log and
#: keys
_OTHER_PROCESSES = (
    "pidfd_open",
    "pidfd_getfd",
    "kcmp",
    "process_madvise",
    "process_mrelease",
    "ioprio_set",
    "setpriority",
    "add_key",
    "request_key",
    "syslog",
)
#: System V IPC and POSIX message queues: shared by the whole machine where there is no IPC
#: namespace
_SHARED_IPC = (
    "shmget",
    "shmat",
    "shmctl",
    "shmdt",
    "semget",
    "semop",
    "semctl",
    "semtimedop",
    "msgget",
    "msgsnd",
    "msgrcv",
    "msgctl",
    "mq_open",
    "mq_unlink",
    "mq_timedsend",
    "mq_timedreceive",
    "mq_notify",
    "mq_getsetattr",
)


def no_namespaces_rules(*, landlock: bool = True) -> list[Rule]:
    """What a default Docker container's profile refuses (namespaces, mounts), for tests of the
    fallbacks; without `landlock`, Landlock is refused too."""
    rules = [
        Rule("unshare"),
        Rule("setns"),
        Rule("mount"),
        Rule("clone", errnos.EPERM, 0, only_bits=NAMESPACE_FLAGS),
        Rule("clone3", errnos.ENOSYS),
    ]
    if not landlock:
        rules.append(Rule("landlock_create_ruleset", errnos.ENOSYS))
    return rules
