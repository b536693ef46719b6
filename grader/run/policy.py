"""What a submission may import: an allowlist for the engine exercises, anything but a named few for torch ones."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass

#: what an engine exercise's submission may import unless the exercise allows more: plain numbers,
#: containers and functional tools. Nothing here differentiates; anything that would (torch, sympy,
#: jax, autograd, tensorflow, numdifftools...) is out, and not even in the child's file tree.
DEFAULT_ALLOWED = frozenset({
    "__future__", "abc", "bisect", "cmath", "collections", "contextlib", "copy", "dataclasses", "decimal", "enum",
    "fractions", "functools", "graphlib", "heapq", "itertools", "math", "numbers", "operator", "pprint", "random",
    "re", "statistics", "string", "sys", "textwrap", "time", "types", "typing", "warnings", "weakref",
})


@dataclass(frozen=True, slots=True)
class ImportPolicy:
    """Top-level module names a submission may import (None: any), and those it may not (torch exercises)."""

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
        top = module.partition(".")[0]
        if top in self.forbidden:
            return False
        return self.allowed is None or top in self.allowed

    @property
    def key(self) -> str:
        """Which zygote serves it: one for everything, one per set of allowed packages."""
        return "all" if self.allowed is None else "lean:" + ",".join(self.packages)

    def describe(self) -> str:
        if self.allowed is None:
            return "anything but " + ", ".join(sorted(self.forbidden)) if self.forbidden else "anything"
        return ", ".join(sorted(self.allowed - {"__future__"}))


def engine_policy(extra: Iterable[str] = (), forbidden: Iterable[str] = ()) -> ImportPolicy:
    """An engine exercise's: the default allowlist, what the exercise adds, minus what it forbids."""
    refused = frozenset(forbidden)
    return ImportPolicy(allowed=(DEFAULT_ALLOWED | frozenset(extra)) - refused, forbidden=refused)


def torch_policy(forbidden: Iterable[str] = ()) -> ImportPolicy:
    return ImportPolicy(allowed=None, forbidden=frozenset(forbidden))
