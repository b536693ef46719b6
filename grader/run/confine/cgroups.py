"""Cgroups where they can be had: memory and processes counted over all of a run's processes
together.

Per-process limits (RLIMIT_AS, RLIMIT_NPROC) let a run that starts many processes hold many times
its memory budget. So each zygote gets control groups of its own (`ZygoteGroup`), made by the
grading process under a group of this process's own (`place`): `memory.max` and `pids.max` on cgroup
v2, or the v1 memory and pids controllers where that is what the machine has (a hybrid layout). A
zygote serves one run at a time, and its runs' children are born in its groups: so the groups hold
the zygote, which is constant, and the run now going; just before each run's fork the zygote sets
the memory limit to its own use plus that run's budget (through descriptors the grading process
opened), and lifts it once the run's child is gone, before it cleans up. (A group made for each run
would need the child moved into it: a write to cgroup.procs waits for an RCU grace period, 10-25 ms
on this project's machines, where a run takes 40-100 ms.) Each run's child is the OOM killer's first
choice (oom_score_adj 1000, set while it waits for its request, inherited by all it starts, and out
of its reach: no run can open /proc/self), and the zygote its last (-1000, where the grading process
may set that), so when the run's processes together pass the limit the kernel kills one of them, and
the grading process, watching the group's oom_kill count, stops the whole run and says so.

Where the groups are made, and where none can be: grader.run.confine.cgroup_place.
"""

from __future__ import annotations

import os
import secrets

from grader.run.confine.cgroup_place import (
    NAMES,
    Hierarchy,
    Place,
    place,
    remove_later,
    sweep_removals,
    write,
    write_file,
)

__all__ = ("NAMES", "Place", "ZygoteGroup", "first_to_kill", "make", "place")


class ZygoteGroup:
    """A zygote's groups (one per hierarchy), which hold it and the run it is serving."""

    def __init__(self, folders: dict[str, Hierarchy]) -> None:
        self._folders = folders
        # the zygote's own memory and tasks, once it has warmed up
        self._base: dict[str, int] | None = None
        self._written: dict[tuple[str, str], str] = {}

    @property
    def weaker(self) -> tuple[str, ...]:
        return Place(tuple(self._folders.values())).weaker

    def adopt(self, pid: int) -> bool:
        """Put the process that becomes the zygote in the groups, exempt from the OOM killer where
        this process may say so (CAP_SYS_RESOURCE); False where the groups refuse it."""
        try:
            write_file(f"/proc/{pid}/oom_score_adj", "-1000")
        except OSError:
            pass  # its runs' processes are still chosen first
        try:
            for folder in self._folders:
                write(folder, "cgroup.procs", str(pid))
        except OSError:
            return False
        return True

    def memory_files(self) -> dict[str, int] | None:
        """Descriptors of the memory limit (and v1's memory and swap limit: -1 where there is none),
        open for writing, for the zygote: it sets each run's limit just before the fork, and lifts
        it once the run's child is gone, so that nothing the run left (files in memory) holds its
        cleanup up. None without a memory controller."""
        for folder, hierarchy in self._folders.items():
            if "memory" not in hierarchy.controllers:
                continue
            names = (
                ("memory.max", "")
                if hierarchy.version == 2
                else ("memory.limit_in_bytes", "memory.memsw.limit_in_bytes")
            )
            files = {"version": hierarchy.version}
            for key, name in zip(("memory", "swap"), names, strict=True):
                try:
                    files[key] = os.open(os.path.join(folder, name), os.O_WRONLY) if name else -1
                except OSError:
                    files[key] = -1
            return files if files["memory"] >= 0 else None
        return None

    def prepare(self, processes: int) -> tuple[int, int]:
        """Before a run: the zygote's own memory (measured once, warm and idle: what it holds stays
        for every run), with the process limit set to its own tasks plus `processes`; and the
        kernel's count of OOM kills so far, to compare with `oom_kills` during the run."""
        if self._base is None:
            self._base = {
                "memory": self._read_number("memory.current", "memory.usage_in_bytes"),
                "pids": self._read_number("pids.current", "pids.current"),
            }
        for folder, hierarchy in self._folders.items():
            if "pids" in hierarchy.controllers:
                self._set(folder, "pids.max", str(self._base["pids"] + processes))
            if "memory" in hierarchy.controllers and hierarchy.version == 2:
                # nor may a run swap past its limit
                self._set(folder, "memory.swap.max", "0", required=False)
        return self._base["memory"], self.oom_kills()

    def oom_kills(self) -> int:
        """How many of the group's processes the kernel has killed for its memory limit."""
        for folder, hierarchy in self._folders.items():
            if "memory" in hierarchy.controllers:
                name = "memory.events" if hierarchy.version == 2 else "memory.oom_control"
                try:
                    with open(os.path.join(folder, name), "rb") as file:
                        for line in file.read(4096).splitlines():
                            if line.startswith(b"oom_kill "):
                                return int(line.split()[1])
                except (OSError, ValueError):
                    return 0
        return 0

    def remove(self) -> None:
        """Remove the groups, once the zygote and all it started are gone (else as soon as they
        are)."""
        remove_later(list(self._folders))

    def _read_number(self, v2: str, v1: str) -> int:
        for folder, hierarchy in self._folders.items():
            name = v2 if hierarchy.version == 2 else v1
            if name.split(".")[0] in hierarchy.controllers:
                try:
                    with open(os.path.join(folder, name)) as file:
                        return int(file.read().split()[0])
                except (OSError, ValueError):
                    return 0
        return 0

    def _set(self, folder: str, name: str, value: str, *, required: bool = True) -> None:
        if self._written.get((folder, name)) == value:
            return
        try:
            write(folder, name, value)
        except OSError:
            if required:
                raise
        self._written[(folder, name)] = value


def make(place: Place) -> ZygoteGroup | None:
    """A zygote's groups under `place`; None where they cannot be made."""
    sweep_removals()
    name = f"zygote-{secrets.token_hex(6)}"
    folders: dict[str, Hierarchy] = {}
    try:
        for hierarchy in place.hierarchies:
            folder = os.path.join(hierarchy.parent, name)
            os.mkdir(folder)
            folders[folder] = hierarchy
    except OSError:
        remove_later(list(folders))
        return None
    return ZygoteGroup(folders)


def first_to_kill(pid: int) -> bool:
    """Make a run's child, and all it will start, the OOM killer's first choice in its zygote's
    groups."""
    try:
        write_file(f"/proc/{pid}/oom_score_adj", "1000")
    except OSError:
        return False
    return True
