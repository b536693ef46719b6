"""What a submission may import: an allowlist for the engine exercises, anything but a named few for
torch ones, and which C extension modules each may load."""

from __future__ import annotations

import os
import sys
import sysconfig
from collections.abc import Iterable
from dataclasses import dataclass

#: standard modules that reach into the process's own memory or into another interpreter, where the
#: guard cannot follow: no submission loads them, whatever its exercise (the C API's test modules,
#: ctypes, mmap, subinterpreters and their channels, which run without the guard's audit hook)
INTO_MEMORY = frozenset(
    {
        "ctypes",
        "_ctypes",
        "_ctypes_test",
        "_testcapi",
        "_testinternalcapi",
        "_testbuffer",
        "_testclinic",
        "_testimportmultiple",
        "_testmultiphase",
        "_testsinglephase",
        "_testlimitedcapi",
        "_testexternalinspection",
        "_xxtestfuzz",
        "xxlimited",
        "xxlimited_35",
        "xxsubtype",
        "mmap",
        "_xxsubinterpreters",
        "_xxinterpchannels",
        "_interpreters",
        "_interpchannels",
        "_interpqueues",
        "test",
    }
)
#: standard modules that reach outside the process: the network, other processes, terminals and
#: devices, the system's databases, and sqlite (which loads extensions). An engine exercise refuses
#: them and the C extensions behind them. The sandbox confines a run regardless (no network, no new
#: processes in landlock mode, a tree of its own); refusing them here says so at the import, and
#: keeps their C code out of reach.
REACHES_OUT = frozenset(
    {
        "socket",
        "_socket",
        "ssl",
        "_ssl",
        "asyncio",
        "_asyncio",
        "socketserver",
        "http.client",
        "http.server",
        "urllib.request",
        "xmlrpc",
        "ftplib",
        "poplib",
        "imaplib",
        "nntplib",
        "smtplib",
        "smtpd",
        "telnetlib",
        "asynchat",
        "asyncore",
        "webbrowser",
        "antigravity",
        "wsgiref.simple_server",
        "logging.handlers",
        "subprocess",
        "_posixsubprocess",
        "multiprocessing",
        "_multiprocessing",
        "_posixshmem",
        "pty",
        "pipes",
        "concurrent.futures.process",
        "fcntl",
        "termios",
        "tty",
        "readline",
        "curses",
        "_curses",
        "_curses_panel",
        "tkinter",
        "_tkinter",
        "turtle",
        "turtledemo",
        "idlelib",
        "ossaudiodev",
        "syslog",
        "nis",
        "spwd",
        "crypt",
        "_crypt",
        "resource",
        "sqlite3",
        "_sqlite3",
        "ensurepip",
        "venv",
    }
)
#: what an engine exercise's submission may import unless the exercise or its course allows more:
#: the standard library, less what reaches outside the process or into its memory. Nothing in it
#: differentiates; anything that would (torch, sympy, jax, autograd, tensorflow, numdifftools...) is
#: out, and not even in the child's file tree.
DEFAULT_ALLOWED = frozenset(sys.stdlib_module_names - INTO_MEMORY - REACHES_OUT)


def _stdlib_extensions() -> frozenset[str]:
    folder = sysconfig.get_config_var("DESTSHARED") or ""
    try:
        files = os.listdir(folder)
    except OSError:
        files = []
    return frozenset(sys.builtin_module_names) | {
        f.partition(".")[0] for f in files if f.endswith(".so")
    }


#: the standard library's C modules, built in or in lib-dynload: what the guard refuses to the
#: standard library's own imports too, where the exercise refuses them (asyncio importing _socket
#: gets an ImportError)
STDLIB_EXTENSIONS = _stdlib_extensions()
#: what an engine exercise's zygote imports once, before it forks children: what engines commonly
#: use (the rest of the standard library loads on the import that asks for it)
WARM = (
    "abc",
    "bisect",
    "cmath",
    "collections",
    "contextlib",
    "copy",
    "dataclasses",
    "decimal",
    "enum",
    "fractions",
    "functools",
    "graphlib",
    "heapq",
    "itertools",
    "json",
    "math",
    "numbers",
    "operator",
    "pprint",
    "random",
    "re",
    "statistics",
    "string",
    "textwrap",
    "time",
    "types",
    "typing",
    "warnings",
    "weakref",
)


@dataclass(frozen=True, slots=True)
class ImportPolicy:
    """Top-level module names a submission may import (None: any), and the modules it may not
    (dotted names refuse that module and its submodules: `http.client`)."""

    allowed: frozenset[str] | None
    forbidden: frozenset[str] = frozenset()

    @property
    def allows_everything(self) -> bool:
        return self.allowed is None

    @property
    def packages(self) -> tuple[str, ...]:
        """The allowed modules that are not part of Python itself (numpy for tensor exercises)."""
        if self.allowed is None:
            return ()
        return tuple(sorted(m for m in self.allowed if m not in sys.stdlib_module_names))

    def permits(self, module: str) -> bool:
        return permits(module, self.allowed, self.forbidden)

    def permits_extension(self, module: str) -> bool:
        """Whether a C extension (or built-in) module may be loaded while the submission runs, by
        anyone."""
        return permits_extension(module, self.allowed, self.forbidden)

    @property
    def key(self) -> str:
        """Which zygote serves it: one for everything, one per set of allowed packages."""
        return "all" if self.allowed is None else "lean:" + ",".join(self.packages)

    def describe(self) -> str:
        if self.allowed is None:
            return (
                "anything but " + ", ".join(sorted(self.forbidden))
                if self.forbidden
                else "anything"
            )
        extra = sorted(self.allowed - DEFAULT_ALLOWED)
        return "the standard library, less what reaches outside the process or into its memory" + (
            f"; and {', '.join(extra)}" if extra else ""
        )


def permits(module: str, allowed: frozenset[str] | None, forbidden: frozenset[str]) -> bool:
    """`module` (dotted) may be imported: its top-level name is allowed, and neither it nor a
    package above it is forbidden. Written over plain sets so that the child can use it on its
    request's lists."""
    parts = module.split(".")
    if any(".".join(parts[:n]) in forbidden for n in range(1, len(parts) + 1)):
        return False
    return allowed is None or parts[0] in allowed


def permits_extension(
    module: str, allowed: frozenset[str] | None, forbidden: frozenset[str]
) -> bool:
    """C code: never what reaches into memory or another interpreter; in an engine exercise only
    what an allowed module brings (the standard library's own, numpy's where numpy is allowed)."""
    if module.partition(".")[0] in INTO_MEMORY or module in INTO_MEMORY:
        return False
    return allowed is None or permits(module, allowed, forbidden)


def engine_policy(extra: Iterable[str] = (), forbidden: Iterable[str] = ()) -> ImportPolicy:
    """An engine exercise's: the default allowlist, what the exercise adds, minus what it
    forbids."""
    refused = frozenset(forbidden) | REACHES_OUT | INTO_MEMORY
    added = frozenset(extra)
    return ImportPolicy(
        allowed=(DEFAULT_ALLOWED | added) - frozenset(forbidden), forbidden=refused - added
    )


def torch_policy(forbidden: Iterable[str] = ()) -> ImportPolicy:
    """A torch exercise's: anything but what it forbids. torch brings ctypes itself (the guard
    refuses its calls); C extensions that reach into memory or another interpreter are refused all
    the same."""
    return ImportPolicy(allowed=None, forbidden=frozenset(forbidden))
