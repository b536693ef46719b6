"""The file tree a zygote and its children see: the system, the interpreter, the grader, allowed
packages.

Worked out in the grading process (`layout`), built in a new mount namespace just before the
zygote's interpreter starts (`build`): a fresh tmpfs becomes the root and holds only what is listed,
read-only. For an engine exercise that is the standard library and the packages the exercise allows
(none, or numpy): torch, sympy, jax and the rest are not in the tree at all, and neither is ctypes,
whose memmove would let code rewrite its own process. Everything else on the machine (checkouts of
the exercises, the reference engine, other students' work, reports, home folders) is not there
either.
"""

from __future__ import annotations

import functools
import os
import site
import sys
import sysconfig
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from grader.run.confine import syscalls
from grader.run.policy import ImportPolicy

#: system folders every tree holds, read-only (symlinks, as on merged-/usr systems, are copied as
#: links)
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
SCRATCH = ("/tmp", "/var/tmp", "/dev/shm")
#: extension modules no sandboxed code may load: foreign calls and raw memory, or the test hooks of
#: the C API
MASKED_EXTENSIONS = (
    "_ctypes",
    "_ctypes_test",
    "_testcapi",
    "_testinternalcapi",
    "_testbuffer",
    "_testmultiphase",
    "_testimportmultiple",
    "_testclinic",
    "_xxtestfuzz",
)
#: read when this module is imported: a zygote's environment is scrubbed before any tree is worked
#: out
_LIBRARY_PATH = os.environ.get("LD_LIBRARY_PATH", "")


@dataclass(frozen=True, slots=True)
class Layout:
    """What a tree holds: folders bound read-only, then covered, then put back inside what was
    covered."""

    binds: tuple[str, ...]
    #: folders made empty (site-packages of a lean tree, folders to hide)
    covers: tuple[str, ...]
    #: folders bound again inside a cover (an allowed package inside a covered site-packages)
    rebinds: tuple[str, ...]
    #: files replaced by an empty one (extension modules a lean tree must not load)
    masked: tuple[str, ...]
    #: bind the GPU driver's /proc entries into the tree's /proc (CUDA needs them)
    gpu_proc: bool


def layout(policy: ImportPolicy, hide: Sequence[str] = ()) -> Layout:
    """The tree for `policy`: every package for torch exercises, the standard library and the
    allowed ones else."""
    grader = grader_folder()
    reference = _reference_folder()
    concealed = [os.path.realpath(h) for h in hide] + ([reference] if reference else [])
    if policy.allows_everything:
        binds = _outermost({*_interpreter_folders(), *_library_folders(), grader})
        covers = [h for h in concealed if _inside_any(h, binds)]
        return Layout(binds=binds, covers=tuple(covers), rebinds=(), masked=(), gpu_proc=True)
    sites = sorted(_site_folders())
    packages: set[str] = set()
    for name in policy.packages:
        packages.update(package_folders(name))
    binds = _outermost({*_base_folders(), grader})
    covers = [s for s in sites if _inside_any(s, binds) or _inside_any(s, SYSTEM)]
    covers += [h for h in concealed if _inside_any(h, binds) and not _inside_any(h, covers)]
    rebinds = sorted(p for p in packages | {grader} if _inside_any(p, covers))
    extra = [p for p in packages if not _inside_any(p, binds) and not _inside_any(p, SYSTEM)]
    return Layout(
        binds=_outermost({*binds, *extra}),
        covers=tuple(covers),
        rebinds=tuple(rebinds),
        masked=tuple(_masked_extensions()),
        gpu_proc=False,
    )


def kept_in_scratch(plan: Layout) -> tuple[str, ...]:
    """The tree's folders that lie in a scratch folder: a zygote empties those after each run, but
    these."""
    return tuple(p for p in (*plan.binds, *plan.rebinds) if _inside_any(p, SCRATCH))


@functools.cache
def _distributions() -> Mapping[str, list[str]]:
    """Each import name's distributions: read once, since it reads every installed distribution's
    metadata (a library course allowing numpy and typing_extensions paid it twice, 0.4 to 1.3 s
    each)."""
    from importlib import metadata

    return metadata.packages_distributions()


@functools.cache
def package_folders(name: str) -> tuple[str, ...]:
    """The top-level folders (and single-file modules) a distribution installs for import name
    `name`."""
    from importlib import metadata, util

    spec = util.find_spec(name)
    if spec is None or spec.origin in (None, "built-in", "frozen"):
        return ()
    found: set[str] = set()
    for dist in _distributions().get(name, []):
        distribution = metadata.distribution(dist)
        root = Path(str(distribution.locate_file("")))
        for entry in distribution.files or []:
            top = entry.parts[0]
            if top not in ("..", "/") and not top.endswith(".pth") and top != "__pycache__":
                found.add(os.path.realpath(root / top))
    if not found:  # no metadata (a package put on the path by hand): its own folder
        locations = spec.submodule_search_locations
        found.add(os.path.realpath(next(iter(locations)) if locations else str(spec.origin)))
    return tuple(sorted(found))


def build(plan: Layout, new: str = "/tmp") -> bool:
    """In a fresh mount namespace: make `plan` the root; False where the kernel refuses (then
    nothing is pivoted)."""
    if not syscalls.mount(None, "/", None, syscalls.MS_REC | syscalls.MS_PRIVATE):
        return False
    sources = [*SYSTEM, *plan.binds, *plan.rebinds, "/dev", "/sys"]
    handles = {
        path: os.open(path, os.O_PATH)
        for path in sources
        if os.path.exists(path) and not os.path.islink(path)
    }
    cpuinfo = _read("/proc/cpuinfo")
    try:
        if not syscalls.mount(
            b"tmpfs", new, b"tmpfs", syscalls.MS_NOSUID | syscalls.MS_NODEV, b"size=4m,mode=755"
        ):
            return False
        _graft(plan, new, handles)
        _fake_proc(new + "/proc", cpuinfo, plan.gpu_proc)
        return _pivot(new)
    finally:
        for handle in handles.values():
            os.close(handle)


def _graft(plan: Layout, new: str, handles: dict[str, int]) -> None:
    """The tree under `new`: the system's folders and the plan's, bound read-only, with the
    plan's covers over what it hides."""
    # Scratch first: a checkout or virtual environment under /tmp (CI clones there) is bound
    # inside it.
    for scratch in SCRATCH[:2]:
        os.makedirs(new + scratch, exist_ok=True)
        _scratch(new + scratch)
    for folder in SYSTEM:
        if os.path.islink(folder):
            os.symlink(os.readlink(folder), new + folder)
        elif folder in handles:
            _bind(handles[folder], new + folder, read_only=True)
    for path in plan.binds:
        if path in handles and not os.path.exists(new + path):
            _bind(handles[path], new + path, read_only=True)
    for path in plan.covers:
        if os.path.isdir(new + path):
            _cover(new + path)
    for path in plan.rebinds:
        if path in handles:
            _bind(handles[path], new + path, read_only=True)
    # what was put back inside them is in place: nothing more is written there
    for path in plan.covers:
        if os.path.isdir(new + path):
            _read_only(new + path)
    for path in plan.masked:
        if os.path.exists(new + path):
            syscalls.mount(b"/dev/null", new + path, None, syscalls.MS_BIND)
    for folder in ("/dev", "/sys"):
        if folder in handles:
            _bind(handles[folder], new + folder, read_only=folder == "/sys")
    if os.path.isdir(new + "/dev/shm"):
        _scratch(new + "/dev/shm")


def _pivot(new: str) -> bool:
    """Make `new` the root, and the old tree gone; False where the kernel refuses."""
    os.mkdir(new + "/.old")
    os.chdir(new)
    if not syscalls.pivot_root(b".", b".old"):
        return False
    os.chdir("/")
    syscalls.umount("/.old")  # the old tree is gone from this namespace for good
    os.rmdir("/.old")
    # Read-only from now on: where runs are the grader's own user (user-namespaces), they own
    # the tree's tmpfs, and a file one left in it (or in a cover) would be there for the runs
    # after it.
    return _read_only("/")


def _fake_proc(target: str, cpuinfo: str, gpu: bool) -> None:
    """No process is visible: /proc holds only what the runtime reads (cpuinfo; the GPU driver's
    entries)."""
    os.makedirs(target, exist_ok=True)
    syscalls.mount(
        b"tmpfs", target, b"tmpfs", syscalls.MS_NOSUID | syscalls.MS_NODEV, b"size=1m,mode=755"
    )
    Path(target, "cpuinfo").write_text(cpuinfo)
    driver = "/proc/driver/nvidia"
    if gpu and os.path.isdir(driver):
        handle = os.open(driver, os.O_PATH)
        try:
            _bind(handle, target + "/driver/nvidia", read_only=True)
        finally:
            os.close(handle)
    syscalls.mount(
        None,
        target,
        None,
        syscalls.MS_REMOUNT | syscalls.MS_RDONLY | syscalls.MS_NOSUID | syscalls.MS_NODEV,
        b"size=1m,mode=755",
    )


def _bind(handle: int, target: str, *, read_only: bool) -> None:
    if os.path.isdir(f"/proc/self/fd/{handle}"):
        os.makedirs(target, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        Path(target).touch()
    if (
        syscalls.mount(
            f"/proc/self/fd/{handle}".encode(), target, None, syscalls.MS_BIND | syscalls.MS_REC
        )
        and read_only
    ):
        # A bind mount takes its own flags only on a remount; where the kernel refuses (flags locked
        # in a user namespace), the files stay as their owners' modes allow.
        syscalls.mount(
            None,
            target,
            None,
            syscalls.MS_REMOUNT
            | syscalls.MS_BIND
            | syscalls.MS_RDONLY
            | syscalls.MS_NOSUID
            | syscalls.MS_NODEV,
        )


def _scratch(path: str) -> bool:
    """An empty tmpfs anyone may write to, as /tmp is; the zygote empties it after every run."""
    return syscalls.mount(
        b"tmpfs", path, b"tmpfs", syscalls.MS_NOSUID | syscalls.MS_NODEV, b"size=256m,mode=1777"
    )


def _read_only(path: str) -> bool:
    return syscalls.mount(
        None,
        path,
        None,
        syscalls.MS_REMOUNT | syscalls.MS_RDONLY | syscalls.MS_NOSUID | syscalls.MS_NODEV,
    )


def _cover(path: str) -> None:
    syscalls.mount(
        b"tmpfs", path, b"tmpfs", syscalls.MS_NOSUID | syscalls.MS_NODEV, b"size=1m,mode=755"
    )


def _read(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError:
        return ""


# ------------------------------------------------------------------------------------------------
# Where things are


def grader_folder() -> str:
    import grader

    return os.path.realpath(str(Path(grader.__file__ or "").parent))


@functools.cache
def _reference_folder() -> str | None:
    """The reference engine's package, wherever it is installed: a solution, covered in every
    tree."""
    import importlib.util

    spec = importlib.util.find_spec("reference")
    locations = list(spec.submodule_search_locations or []) if spec else []
    return os.path.realpath(locations[0]) if locations else None


def _prefixes() -> set[str]:
    return {
        os.path.realpath(p)
        for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix)
    }


def _interpreter_folders() -> set[str]:
    """The interpreter's prefixes and every package folder on sys.path that belongs to them.

    A checkout with an editable install puts the repository itself on sys.path, exercises and all:
    of that, a child needs the grader package alone.
    """
    prefixes = _prefixes()
    # a zygote for torch exercises is given it too
    given = os.environ.get("PYTHONPATH", "").split(os.pathsep)
    entries = {os.path.realpath(p) for p in [*sys.path, *given] if p}
    kept = {
        p
        for p in entries
        if _inside_any(p, prefixes) or Path(p).name in ("site-packages", "dist-packages")
    }
    return {p for p in prefixes | kept if os.path.isdir(p)}


def _library_folders() -> set[str]:
    # Where a GPU image keeps the driver's libraries (/usr/local/nvidia/lib64, say), torch finds
    # CUDA.
    return {os.path.realpath(p) for p in _LIBRARY_PATH.split(":") if p and os.path.isdir(p)}


def _base_folders() -> set[str]:
    """The interpreter without packages: its installation (site folders covered later), and a
    virtual environment's bin folder and pyvenv.cfg, which the interpreter reads as it starts."""
    folders = {os.path.realpath(sys.base_prefix), os.path.realpath(sys.base_exec_prefix)}
    if sys.prefix != sys.base_prefix:
        venv = Path(sys.prefix)
        folders |= {os.path.realpath(venv / "bin"), str(venv / "pyvenv.cfg")}
    folders |= {os.path.realpath(sysconfig.get_paths()[key]) for key in ("stdlib", "platstdlib")}
    return {p for p in folders if os.path.exists(p)}


def _site_folders() -> set[str]:
    """Every folder third-party packages may be installed in, for this interpreter and its base."""
    found: set[str] = set()
    for scheme_vars in ({}, {"base": sys.base_prefix, "platbase": sys.base_exec_prefix}):
        paths = sysconfig.get_paths(vars=scheme_vars) if scheme_vars else sysconfig.get_paths()
        found |= {paths["purelib"], paths["platlib"]}
    found |= set(getattr(site, "getsitepackages", list)())
    found.add(site.getusersitepackages())
    found |= {p for p in sys.path if Path(p).name in ("site-packages", "dist-packages")}
    return {os.path.realpath(p) for p in found if p and os.path.isdir(p)}


def _masked_extensions() -> list[str]:
    from importlib.machinery import PathFinder

    found = [PathFinder.find_spec(name) for name in MASKED_EXTENSIONS]
    return [os.path.realpath(spec.origin) for spec in found if spec is not None and spec.origin]


def _inside_any(path: str, folders: Iterable[str]) -> bool:
    return any(path == f or path.startswith(f.rstrip("/") + "/") for f in folders)


def _outermost(paths: Iterable[str]) -> tuple[str, ...]:
    real = sorted(set(paths))
    return tuple(
        p for p in real if not any(p != q and p.startswith(q.rstrip("/") + "/") for q in real)
    )
