"""The grader's own wheel, for a pack: what `pip install` takes from the pack's wheels/ folder, so
that a student with only the pack installs the grader (no index has it) and only its dependencies
from their usual index.

From a checkout (an editable install, or the grader run from its source), the wheel is built as any
is: `pip wheel --no-deps` of a copy of the project's files (so that the build leaves nothing in the
checkout), without build isolation where setuptools is at hand (no index is asked). From an
installed wheel (a grader a pack brought), the installed files are packed again, as its RECORD lists
them, into the same wheel.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.metadata as metadata
import importlib.util
import shutil
import subprocess
import sys
import tempfile
import tomllib
import zipfile
from pathlib import Path

import grader
from grader.core.errors import GraderError

DISTRIBUTION = "autograd-grader"
#: the pack's folder of wheels
WHEELS = "wheels"
#: what the build of a checkout needs of it (pyproject.toml's packages, its readme)
_PROJECT = ("pyproject.toml", "README.md", "grader", "reference")
#: installed files that are the installer's, not the wheel's
_INSTALLER = frozenset({"RECORD", "INSTALLER", "REQUESTED", "direct_url.json"})


def wheel_name() -> str:
    """The file name of the grader's wheel (pure Python, any platform)."""
    return f"{DISTRIBUTION.replace('-', '_')}-{grader.__version__}-py3-none-any.whl"


def grader_wheel(out: Path) -> Path:
    """Write the running grader's wheel into `out` (made if need be); its path."""
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob(f"{DISTRIBUTION.replace('-', '_')}-*.whl"):
        old.unlink()  # a pack released again carries one grader, this one
    source = checkout()
    if source is None:
        made = _repack(out)
    else:
        built = _BUILT.get((source, _fingerprint(source)))
        if built is None or not built.is_file():
            scratch = Path(tempfile.mkdtemp(prefix="grader-wheels-"))
            built = _BUILT[(source, _fingerprint(source))] = _build(source, scratch)
        made = Path(shutil.copy2(built, out / built.name))
    if made.name != wheel_name():
        raise GraderError(
            f"the grader's wheel came out as {made.name}, not {wheel_name()}: is {source or 'it'} "
            f"the grader this is ({grader.__version__})?"
        )
    return made


#: wheels built in this process, by checkout and the state of its files (a pack of each assignment:
#: built once)
_BUILT: dict[tuple[Path, tuple[int, int]], Path] = {}


def _fingerprint(source: Path) -> tuple[int, int]:
    """How many of the project's files there are, and their latest change: a changed checkout is
    built again."""
    stamps = []
    for name in _PROJECT:
        top = source / name
        for path in [top] if top.is_file() else top.rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts:
                stamps.append(path.stat().st_mtime_ns)
    return len(stamps), max(stamps, default=0)


def checkout() -> Path | None:
    """The project folder the running grader comes from, if it is a checkout (its pyproject.toml
    names it)."""
    assert grader.__file__ is not None
    root = Path(grader.__file__).resolve().parents[1]
    try:
        project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8")).get(
            "project", {}
        )
    except (OSError, tomllib.TOMLDecodeError):
        return None
    return root if project.get("name") == DISTRIBUTION else None


def _build(source: Path, out: Path) -> Path:
    # the build backend, where it is installed here: then no index is asked for it
    isolation = (
        ["--no-build-isolation", "--no-index"] if importlib.util.find_spec("setuptools") else []
    )
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build")
    with tempfile.TemporaryDirectory(prefix="grader-wheel-") as scratch:
        project = Path(scratch) / "project"
        project.mkdir()
        for name in _PROJECT:
            path = source / name
            if path.is_dir():
                shutil.copytree(path, project / name, ignore=ignore)
            elif path.is_file():
                shutil.copy2(path, project / name)
        built = Path(scratch) / "built"
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "wheel",
                "--no-deps",
                "--quiet",
                *isolation,
                "--wheel-dir",
                str(built),
                str(project),
            ],
            capture_output=True,
            text=True,
            timeout=600,
        )
        wheels = sorted(built.glob("*.whl"))
        if done.returncode != 0 or len(wheels) != 1:
            said = (done.stderr or done.stdout).strip()[-600:]
            raise GraderError(
                f"the grader's wheel could not be built from {source} (pip wheel: {said}); the "
                f"pack needs it so that students can install the grader."
            )
        return Path(shutil.copy2(wheels[0], out / wheels[0].name))


def _repack(out: Path) -> Path:
    """The installed grader's files, as its RECORD lists them, packed again into its wheel."""
    try:
        installed = metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        raise GraderError(
            "the grader is neither a checkout nor installed as autograd-grader, so grade release "
            "cannot put it in the pack; install it (pip install -e .) and release again."
        ) from None
    files = [
        f
        for f in installed.files or []
        if not f.as_posix().startswith("..") and "__pycache__" not in f.parts and f.suffix != ".pyc"
    ]
    info = next((f.parts[0] for f in files if f.parts[0].endswith(".dist-info")), None)
    if info is None:
        raise GraderError(
            "the installed grader has no .dist-info to pack again; install it from its wheel or "
            "its source, and release again."
        )
    path = out / wheel_name()
    record = []
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as wheel:
        for file in sorted(files, key=lambda f: f.as_posix()):
            name = file.as_posix()
            if file.parts[0] == info and file.name in _INSTALLER:
                continue
            data = Path(str(installed.locate_file(file))).read_bytes()
            wheel.writestr(name, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            record.append(f"{name},sha256={digest},{len(data)}")
        record.append(f"{info}/RECORD,,")
        wheel.writestr(f"{info}/RECORD", "\n".join(record) + "\n")
    return path
