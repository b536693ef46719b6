"""Where this process may make cgroups: a group of its own in each hierarchy that holds the memory
and pids controllers, found by trying once per process (a forked worker finds its own), and removed
at its exit.

Groups are made inside this process's own cgroup, so a container's limits still bound them. On
cgroup v2, where a group that holds processes cannot hand controllers down, they are made beside it
instead, and only where its own group has no limit of that controller to escape. Where neither works
(a read-only /sys/fs/cgroup, as in a default Docker container), `Place.weaker` says which limits
stay per process.
"""

from __future__ import annotations

import atexit
import errno
import functools
import os
from collections.abc import Sequence
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
    """Where groups are made for `controllers`: cgroup `version` 1 or 2, under the folder
    `parent`."""

    version: int
    parent: str
    controllers: tuple[Controller, ...]


@dataclass(frozen=True, slots=True)
class Place:
    """Where this process makes groups; `why` says what was missing for the controllers not
    there."""

    hierarchies: tuple[Hierarchy, ...]
    why: str = ""

    @property
    def weaker(self) -> tuple[str, ...]:
        """The limits that stay per process here: "memory", "processes", both or none."""
        held = _held(self.hierarchies)
        return tuple(NAMES[c] for c in CONTROLLERS if c not in held)


def _held(hierarchies: Sequence[Hierarchy]) -> set[str]:
    """The controllers the hierarchies hold between them."""
    held: set[str] = set()
    for hierarchy in hierarchies:
        held.update(hierarchy.controllers)
    return held


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
    held = _held(hierarchies)
    missing = [c for c in CONTROLLERS if c not in held]
    why = "; ".join(f"no {c} cgroup this process may make groups in" for c in missing)
    return Place(tuple(hierarchies), why)


def _v1(controller: Controller, path: str, mount: tuple[str, str], pid: int) -> Hierarchy | None:
    """A group of this process's own under its cgroup in the v1 hierarchy of `controller`."""
    own = _inside(mount, path)
    if own is None:
        return None
    return _made(Hierarchy(1, os.path.join(own, PREFIX + str(pid)), (controller,)), pid)


def _v2(
    controllers: tuple[Controller, ...], path: str, mount: tuple[str, str], pid: int
) -> list[Hierarchy]:
    """A group of this process's own on cgroup v2: inside its own group where that may hand the
    controllers down (the root, which may hold processes too), or else beside it, where its own
    group has no limit of theirs to escape."""
    own = _inside(mount, path)
    if own is None:
        return []
    inside = tuple(c for c in controllers if c in _enabled(own))
    beside = tuple(
        c
        for c in controllers
        if c not in inside
        and own != mount[1]
        and c in _enabled(os.path.dirname(own))
        and _unlimited(own, c)
    )
    found = []
    for base, held in ((own, inside), (os.path.dirname(own), beside)):
        if held:
            made = _made(Hierarchy(2, os.path.join(base, PREFIX + str(pid)), held), pid)
            if made is not None:
                found.append(made)
    return found


def _made(hierarchy: Hierarchy, pid: int) -> Hierarchy | None:
    """`hierarchy`'s parent group made, and a zygote's group made, limited and removed in it once;
    None where not."""
    _clean_stale(os.path.dirname(hierarchy.parent))
    try:
        os.mkdir(hierarchy.parent)
    except FileExistsError:
        pass
    except OSError:
        return None
    try:
        if hierarchy.version == 2:
            write(
                hierarchy.parent,
                "cgroup.subtree_control",
                " ".join(f"+{c}" for c in hierarchy.controllers),
            )
        probe = os.path.join(hierarchy.parent, "probe")
        os.mkdir(probe)
        try:
            for controller in hierarchy.controllers:
                name = (
                    "pids.max"
                    if controller == "pids"
                    else "memory.max"
                    if hierarchy.version == 2
                    else "memory.limit_in_bytes"
                )
                write(probe, name, "64" if controller == "pids" else str(1 << 30))
        finally:
            _rmdir(probe)
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
    """Writable cgroup mounts: each v1 controller ("" for v2) to (its root in the hierarchy, the
    mount point)."""
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
        return os.path.normpath(point + path[len(root) :])
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
        entries = [
            e
            for e in os.scandir(base)
            if e.name.startswith(PREFIX) and e.is_dir(follow_symlinks=False)
        ]
    except OSError:
        return
    for entry in entries:
        owner = entry.name.removeprefix(PREFIX)
        if owner.isdigit() and not os.path.exists(f"/proc/{owner}"):
            _remove(entry.path)


def _remove_own(folder: str, pid: int) -> None:
    if os.getpid() == pid:  # a forked worker inherits the handler, not the groups
        sweep_removals()
        _remove(folder)


def _remove(folder: str) -> bool:
    """Remove a group and the zygotes' groups in it; False where one still holds a process."""
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


#: groups whose processes had not all gone when they were removed: removed at the next chance
_pending: list[str] = []


def remove_later(folders: list[str]) -> None:
    """Remove `folders` as soon as every process in them has gone (a dying one leaves its group
    late)."""
    _pending.extend(folders)
    sweep_removals()


def sweep_removals() -> None:
    _pending[:] = [folder for folder in _pending if not _rmdir(folder)]


def write(folder: str, name: str, value: str) -> None:
    write_file(os.path.join(folder, name), value)


def write_file(path: str, value: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, value.encode())
    finally:
        os.close(fd)
