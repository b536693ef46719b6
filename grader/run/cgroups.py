"""A cgroup per run, where one can be had: memory and processes counted over all of a run's processes together.

Per-process limits (RLIMIT_AS, RLIMIT_NPROC) let a run that starts many processes hold many times its
memory budget. So each run gets control groups of its own, made by the grading process under a group of
this process's own (`place`): `memory.max` and `pids.max` on cgroup v2, or the v1 memory and pids
controllers where that is what the machine has (a hybrid layout). The grading process puts the run's
child in them before the child has read its request, so before any of the submission's code runs, and
everything the child starts is counted there. Where the kernel kills one of a run's processes for the
run's memory, the grading process stops the whole run and says so.

A process's groups are made inside its own cgroup, so a container's limits still bound them. On cgroup
v2, where a group that holds processes cannot hand controllers down, they are made beside it instead,
and only where its own group has no limit of that controller that runs would escape. Where neither
works (a read-only /sys/fs/cgroup, as in a default Docker container), `Place.weaker` says which limits
stay per process.
"""

from __future__ import annotations

import atexit
import errno
import functools
import os
import secrets
from dataclasses import dataclass
from typing import Literal

ROOT = "/sys/fs/cgroup"
Controller = Literal["memory", "pids"]
CONTROLLERS: tuple[Controller, ...] = ("memory", "pids")
#: the names of limits as reports give them
NAMES = {"memory": "memory", "pids": "processes"}
PREFIX = "autograd-grader-"


@dataclass(frozen=True, slots=True)
class Hierarchy:
    """Where run groups are made for `controllers`: cgroup `version` 1 or 2, under the folder `parent`."""

    version: int
    parent: str
    controllers: tuple[Controller, ...]


@dataclass(frozen=True, slots=True)
class Place:
    """Where this process makes run groups; `why` says what was missing for the controllers not there."""

    hierarchies: tuple[Hierarchy, ...]
    why: str = ""

    @property
    def weaker(self) -> tuple[str, ...]:
        """The limits that stay per process here: "memory", "processes", both or none."""
        held = {c for h in self.hierarchies for c in h.controllers}
        return tuple(NAMES[c] for c in CONTROLLERS if c not in held)


class RunGroup:
    """One run's groups (one per hierarchy), made with their limits by `make`."""

    def __init__(self, folders: dict[str, Hierarchy]) -> None:
        self._folders = folders

    def add(self, pid: int) -> bool:
        """Put process `pid` (and so all it will start) in every one of this run's groups."""
        try:
            for folder in self._folders:
                _write(folder, "cgroup.procs", str(pid))
        except OSError:
            return False
        return True

    def memory_exceeded(self) -> bool:
        """Whether the kernel has killed one of the run's processes for the run's memory limit."""
        for folder, hierarchy in self._folders.items():
            if "memory" not in hierarchy.controllers:
                continue
            name = "memory.events" if hierarchy.version == 2 else "memory.oom_control"
            try:
                with open(os.path.join(folder, name), "rb") as file:
                    lines = file.read(4096).splitlines()
            except OSError:
                continue
            if any(line.startswith(b"oom_kill ") and line.split()[1] != b"0" for line in lines):
                return True
        return False

    def close(self) -> None:
        """Kill what is left in the groups (v2 can) and remove them; one still emptying is removed later."""
        for folder, hierarchy in self._folders.items():
            if hierarchy.version == 2:
                _try_write(folder, "cgroup.kill", "1")
            _pending.append(folder)
        _sweep_removals()


def make(place: Place, memory_bytes: int, processes: int) -> RunGroup | None:
    """A run's groups under `place`, with its memory limit (0: none) and process limit; None where refused."""
    _sweep_removals()
    name = f"run-{secrets.token_hex(6)}"
    folders: dict[str, Hierarchy] = {}
    try:
        for hierarchy in place.hierarchies:
            folder = os.path.join(hierarchy.parent, name)
            os.mkdir(folder)
            folders[folder] = hierarchy
            _limit(folder, hierarchy, memory_bytes, processes)
    except OSError:
        _pending.extend(folders)
        return None
    return RunGroup(folders)


def _limit(folder: str, hierarchy: Hierarchy, memory_bytes: int, processes: int) -> None:
    if "pids" in hierarchy.controllers:
        _write(folder, "pids.max", str(processes))
    if "memory" not in hierarchy.controllers or memory_bytes <= 0:
        return
    if hierarchy.version == 2:
        _write(folder, "memory.max", str(memory_bytes))
        _write(folder, "memory.oom.group", "1")  # one process over the limit ends all of the run
        _try_write(folder, "memory.swap.max", "0")  # nor may the run swap its way past the limit
    else:
        _write(folder, "memory.limit_in_bytes", str(memory_bytes))
        _try_write(folder, "memory.memsw.limit_in_bytes", str(memory_bytes))


# ------------------------------------------------------------------------------------------------
# Where this process may make groups: found once per process (a forked worker finds its own)


def place() -> Place:
    return _place_for(os.getpid())


@functools.cache
def _place_for(pid: int) -> Place:
    own = _own_groups()
    mounts = _mounts()
    hierarchies: list[Hierarchy] = []
    v2: list[Controller] = []
    for controller in CONTROLLERS:
        path = next((p for names, p in own.items() if controller in names.split(",")), None)
        mount = mounts.get(controller)
        if path is not None and mount is not None:  # a v1 hierarchy holds it
            found = _v1(controller, path, mount, pid)
            hierarchies += [found] if found is not None else []
        else:
            v2.append(controller)
    if v2 and "" in own and "" in mounts:
        hierarchies += _v2(tuple(v2), own[""], mounts[""], pid)
    held = {c for h in hierarchies for c in h.controllers}
    missing = [c for c in CONTROLLERS if c not in held]
    why = "; ".join(f"no {c} cgroup this process may make groups in" for c in missing)
    return Place(tuple(hierarchies), why)


def _v1(controller: Controller, path: str, mount: tuple[str, str], pid: int) -> Hierarchy | None:
    """A group of this process's own under its cgroup in the v1 hierarchy of `controller`."""
    own = _inside(mount, path)
    if own is None:
        return None
    return _made(Hierarchy(1, os.path.join(own, PREFIX + str(pid)), (controller,)), pid)


def _v2(controllers: tuple[Controller, ...], path: str, mount: tuple[str, str], pid: int) -> list[Hierarchy]:
    """A group of this process's own on cgroup v2: inside its own group where that may hand the controllers
    down (the root, which may hold processes too), or else beside it, where its own group has no limit of
    theirs to escape."""
    own = _inside(mount, path)
    if own is None:
        return []
    inside = tuple(c for c in controllers if c in _enabled(own))
    beside = tuple(c for c in controllers if c not in inside and own != mount[1]
                   and c in _enabled(os.path.dirname(own)) and _unlimited(own, c))
    found = []
    for base, held in ((own, inside), (os.path.dirname(own), beside)):
        if held:
            made = _made(Hierarchy(2, os.path.join(base, PREFIX + str(pid)), held), pid)
            if made is not None:
                found.append(made)
    return found


def _made(hierarchy: Hierarchy, pid: int) -> Hierarchy | None:
    """`hierarchy`'s parent group made, and a run group made, limited and removed in it once; None where not."""
    _clean_stale(os.path.dirname(hierarchy.parent))
    try:
        os.mkdir(hierarchy.parent)
    except FileExistsError:
        pass
    except OSError:
        return None
    try:
        if hierarchy.version == 2:
            _write(hierarchy.parent, "cgroup.subtree_control", " ".join(f"+{c}" for c in hierarchy.controllers))
        probe = make(Place((hierarchy,)), 1 << 30, 64)
        if probe is None:
            raise OSError("no run group")
        probe.close()
    except OSError:
        _remove(hierarchy.parent)
        return None
    atexit.register(_remove_own, hierarchy.parent, pid)
    return hierarchy


def _own_groups() -> dict[str, str]:
    """This process's cgroup in each hierarchy: its controllers ("" for v2) to its path."""
    found: dict[str, str] = {}
    try:
        with open("/proc/self/cgroup") as file:
            for line in file:
                _, controllers, path = line.rstrip("\n").split(":", 2)
                found[controllers] = path
    except (OSError, ValueError):
        pass
    return found


def _mounts() -> dict[str, tuple[str, str]]:
    """Writable cgroup mounts: each v1 controller ("" for v2) to (its root in the hierarchy, the mount point)."""
    found: dict[str, tuple[str, str]] = {}
    try:
        with open("/proc/self/mountinfo") as file:
            for line in file:
                fields = line.split()
                dash = fields.index("-")
                fstype, options = fields[dash + 1], fields[dash + 3].split(",")
                if "ro" in fields[5].split(",") or "ro" in options:
                    continue
                where = (fields[3], fields[4].replace("\\040", " "))
                if fstype == "cgroup2":
                    found.setdefault("", where)
                elif fstype == "cgroup":
                    for controller in CONTROLLERS:
                        if controller in options:
                            found.setdefault(controller, where)
    except (OSError, ValueError):
        pass
    return found


def _inside(mount: tuple[str, str], path: str) -> str | None:
    """The folder of cgroup `path`, in a hierarchy whose `mount[0]` is mounted at `mount[1]`."""
    root, point = mount
    if root == "/":
        return os.path.normpath(point + path)
    if path == root:
        return point
    if path.startswith(root.rstrip("/") + "/"):
        return os.path.normpath(point + path[len(root):])
    return None


def _enabled(folder: str) -> list[str]:
    try:
        with open(os.path.join(folder, "cgroup.subtree_control")) as file:
            return file.read().split()
    except OSError:
        return []


def _unlimited(folder: str, controller: Controller) -> bool:
    try:
        with open(os.path.join(folder, f"{controller}.max")) as file:
            return file.read().strip() == "max"
    except OSError:
        return False


def _clean_stale(base: str) -> None:
    """Groups left by graders that died before removing theirs (SIGKILL): only empty ones can go."""
    try:
        entries = [e for e in os.scandir(base) if e.name.startswith(PREFIX) and e.is_dir(follow_symlinks=False)]
    except OSError:
        return
    for entry in entries:
        owner = entry.name.removeprefix(PREFIX)
        if owner.isdigit() and not os.path.exists(f"/proc/{owner}"):
            _remove(entry.path)


def _remove_own(folder: str, pid: int) -> None:
    if os.getpid() == pid:  # a forked worker inherits the handler, not the groups
        _sweep_removals()
        _remove(folder)


def _remove(folder: str) -> bool:
    """Remove a group and the run groups in it; False where one still holds a process."""
    try:
        for entry in os.scandir(folder):
            if entry.is_dir(follow_symlinks=False):
                _rmdir(entry.path)
    except OSError:
        pass
    return _rmdir(folder)


def _rmdir(folder: str) -> bool:
    try:
        os.rmdir(folder)
    except FileNotFoundError:
        return True
    except OSError as exc:
        return exc.errno not in (errno.EBUSY, errno.ENOTEMPTY)
    return True


#: run groups whose processes had not all gone when their run ended: removed at the next chance
_pending: list[str] = []


def _sweep_removals() -> None:
    _pending[:] = [folder for folder in _pending if not _rmdir(folder)]


def _write(folder: str, name: str, value: str) -> None:
    fd = os.open(os.path.join(folder, name), os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, value.encode())
    finally:
        os.close(fd)


def _try_write(folder: str, name: str, value: str) -> None:
    try:
        _write(folder, name, value)
    except OSError:
        pass  # no swap accounting here, or nothing left to kill
