"""Package the grader to run on a platform: Gradescope's
setup.sh, run_autograder and autograder.zip.

The export is reproducible: setup.sh (grader/templates/gradescope/setup.sh.tmpl) makes a
Python 3.11+ on any of Gradescope's base images (the image's own where it has one, else
CPython by a uv pinned by hash), installs torch at the version the README pins (TORCH_PIN,
the CPU build) and only where an exported exercise needs torch, and every other package
the grader runs on at the version installed where the export was made (requirements.txt,
the whole closure of the grader's runtime requirements), so the autograder runs what the
instructor tested. run_autograder grades the submission folder with the same choice of
file as `grade FOLDER` (grader.course.selection) and always leaves a results.json: a
problem with the submission (no file, several candidates) reaches the student as its text.
"""

from __future__ import annotations

import importlib.metadata as metadata
import shutil
import zipfile
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

import grader
import reference
from grader.core.errors import GraderError
from grader.core.exercise import Exercise
from grader.course.secret import CourseSecret, write_new_secret, write_secret
from grader.judge.catalog import ASSIGNMENTS, Catalog
from grader.run.sandbox import runs_lean

#: the course secret's file in the export, and so in the
#: zip: /autograder/source/course-secret on Gradescope
SECRET_IN_EXPORT = "course-secret"
#: the torch the README and .ci/run install (tests/test_export.py holds the three to one version)
TORCH_PIN = "2.13.0"
TORCH_INDEX = "https://download.pytorch.org/whl/cpu"
DISTRIBUTION = "autograd-grader"

#: what setup.sh installs Python with where the image has no 3.11+
#: (grader/templates/gradescope/setup.sh.tmpl): uv's wheel from PyPI,
#: pinned by version and sha256, for each machine Gradescope runs
UV_VERSION, UV_PYTHON = "0.13.9", "3.12"
UV_WHEELS = {
    "X86_64": (
        "https://files.pythonhosted.org/packages/3d/aa/"
        "26d64642d808de4a652579ef950d7cd2d37f080a8babf9c67c6b75fc4c3f/"
        "uv-0.13.9-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
        "d7f459fe4fd247d830351c75686d3996ace3c6f3f728eb0e85a30b7ada0cef19",
    ),
    "AARCH64": (
        "https://files.pythonhosted.org/packages/fe/2f/"
        "51a5de367c602592c018a42a23d57fba5f2689fe6c3bf025dcf043b39c61/"
        "uv-0.13.9-py3-none-manylinux_2_28_aarch64.whl",
        "ecb6028d79dc96fbeafffe5c8af62a7099487ebc05a701e76714eebcffd06375",
    ),
}

TORCH_STEP = """\
# The CPU build of torch, at the README's pin: a plain `pip install torch` pulls a multi-GB
# CUDA build.
"$venv/bin/python" -m pip install -q "torch=={pin}" --index-url {index}
"""

RUN = """\
#!/usr/bin/env bash
# Gradescope runs this for every submission. Whatever happens, a results.json is written.
set -u
root=${{AUTOGRADER_ROOT:-/autograder}}
results="$root/results/results.json"
errors="$root/results/grader-errors.txt"
mkdir -p "$root/results"
rm -f "$results"
export PYTHONPATH="$root/source/src"
# The whole submission folder: the grader chooses the file that answers the exercise, the same way
# `grade FOLDER` does, and lets it import the other .py files handed in beside it.
"$root/venv/bin/python" -m grader "$root/submission" {which} {seeding} --device cpu \\
  --exercises "$root/source/exercises" --format gradescope --output "$results" 2> "$errors"
status=$?
if [ ! -s "$results" ]; then
  "$root/venv/bin/python" - "$results" "$errors" "$status" "$root/submission" <<'PY'
import json, sys
from grader.outputs.formats.gradescope import gradescope_failure
results, errors, status, submission = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
text = open(errors, encoding="utf-8", errors="replace").read()
lines = [line for line in text.splitlines() if line.strip()]
if status == 2 and lines:  # a problem with the submission, said in one line: the student can fix it
    # in the student's words: their files by name, never where the autograder keeps them
    reason = lines[-1].removeprefix("error: ").replace(submission + "/", "")
    reason = reason.replace(submission, "Your submission")
else:
    reason = {grader_failed!r}
with open(results, "w") as out:
    json.dump(gradescope_failure(reason), out)
PY
fi
"""


def export_gradescope(
    catalog: Catalog,
    out: Path,
    *,
    exercise: str | None = None,
    assignment: str | None = None,
    seed: int | None = None,
    secret: CourseSecret | None = None,
) -> Path:
    """Write setup.sh, requirements.txt, run_autograder,
    the grader's source and the exercises; zip them.

    Each submission's seed is drawn from a course secret and the submission (grader.core.seeds),
    as a batch draws it, so no student can table the answers to inputs they saw: the course's
    `secret`, else a fresh one. It is written to out/course-secret, which the zip carries
    (students never see the autograder's files) and the instructor keeps, to turn a report's
    token back into its seed. With `seed`, every submission gets that one seed instead.
    """
    if assignment is not None:
        _, exercises = catalog.load_assignment(assignment)
        which = f"--assignment {assignment}"
    elif exercise is not None:
        exercises = [catalog.load(exercise)]
        which = f"--exercise {exercise}"
    else:
        raise ValueError("an exercise or an assignment")
    needs_torch = not runs_lean(exercises)
    out.mkdir(parents=True, exist_ok=True)
    (out / "requirements.txt").write_text(requirements(with_torch=needs_torch))
    torch = TORCH_STEP.format(pin=TORCH_PIN, index=TORCH_INDEX) if needs_torch else ""
    (out / "setup.sh").write_text(setup_script(torch))
    from grader.judge.session import GRADER_FAILED

    seeding = _seeding(out, seed, secret)
    script = RUN.format(which=which, seeding=seeding, grader_failed=GRADER_FAILED)
    (out / "run_autograder").write_text(script)
    for name in ("setup.sh", "run_autograder"):
        (out / name).chmod(0o755)
    _copy_sources(out, catalog, exercises, assignment)
    return _zipped(out)


def _seeding(out: Path, seed: int | None, secret: CourseSecret | None) -> str:
    """run_autograder's seed option: `seed` for every submission, else one drawn from the
    course secret the export carries (the course's, else a fresh one)."""
    kept = out / SECRET_IN_EXPORT
    kept.unlink(missing_ok=True)
    if seed is not None:
        return f"--seed {seed}"
    if secret is None:
        write_new_secret(kept)
    else:
        write_secret(kept, secret.value)  # mode 600 from its first byte, as the course's own
    return f'--secret-file "$root/source/{SECRET_IN_EXPORT}"'


def _copy_sources(
    out: Path, catalog: Catalog, exercises: Sequence[Exercise], assignment: str | None
) -> None:
    """The grader's and the reference's source, the exercises and the assignment's file."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for package in (grader, reference):
        assert package.__file__ is not None  # both are regular packages
        source = Path(package.__file__).parent
        shutil.copytree(source, out / "src" / source.name, ignore=ignore, dirs_exist_ok=True)
    for e in exercises:
        shutil.copytree(e.folder, out / "exercises" / e.id, ignore=ignore, dirs_exist_ok=True)
    if assignment is not None:
        assignments = out / "exercises" / ASSIGNMENTS
        assignments.mkdir(parents=True, exist_ok=True)
        shutil.copy(catalog.root / ASSIGNMENTS / f"{assignment}.yaml", assignments)


def _zipped(out: Path) -> Path:
    """autograder.zip, with the files at its root, as Gradescope requires."""
    archive = out / "autograder.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zipped:
        for path in sorted(p for p in out.rglob("*") if p.is_file() and p != archive):
            info = zipfile.ZipInfo.from_file(path, path.relative_to(out).as_posix())
            # the same bytes on every export of the same files
            info.date_time = (2026, 1, 1, 0, 0, 0)
            zipped.writestr(info, path.read_bytes())
    return archive


def setup_script(torch_step: str) -> str:
    """setup.sh, from its template: Python 3.11+ on any of
    Gradescope's base images, then the pinned packages."""
    text = (
        resources.files("grader")
        .joinpath("templates/gradescope/setup.sh.tmpl")
        .read_text(encoding="utf-8")
    )
    values = {"PYTHON_VERSION": UV_PYTHON, "UV_VERSION": UV_VERSION, "TORCH_STEP": torch_step}
    for machine, (url, sha256) in UV_WHEELS.items():
        values |= {f"UV_WHEEL_{machine}": url, f"UV_SHA256_{machine}": sha256}
    for key, value in values.items():
        text = text.replace(f"@{key}@", value)
    return text


def requirements(*, with_torch: bool) -> str:
    """Every package the grader needs to run, at the
    version installed here, one `name==version` a line.

    torch and what only torch needs are left out: setup.sh installs torch
    from the CPU index, where it is needed at all, and torch brings its own.
    """
    try:
        wanted = metadata.requires(DISTRIBUTION) or []
    except metadata.PackageNotFoundError:
        raise GraderError(
            f"the grader is not installed as {DISTRIBUTION} (pip install -e .): the versions "
            f"the export pins are read from its installation."
        ) from None
    pins: dict[str, str] = {}
    queue = [
        r for r in map(Requirement, wanted) if _applies(r) and canonicalize_name(r.name) != "torch"
    ]
    while queue:
        requirement = queue.pop()
        name = canonicalize_name(requirement.name)
        if name in pins:
            continue
        try:
            pins[name] = metadata.version(requirement.name)
            queue += [
                r
                for r in map(Requirement, metadata.requires(requirement.name) or [])
                if _applies(r)
            ]
        except metadata.PackageNotFoundError:
            raise GraderError(
                f"{requirement.name}, which the grader needs, is not installed here; install the "
                f"grader with its dependencies before exporting."
            ) from None
    lines = [f"{name}=={version}" for name, version in sorted(pins.items())]
    header = "# Pinned by grade export: the versions the grader was exported with.\n"
    if with_torch:
        header += f"# torch=={TORCH_PIN} (CPU) is installed by setup.sh first.\n"
    return header + "\n".join(lines) + "\n"


def _applies(requirement: Requirement) -> bool:
    """Whether a requirement holds for a plain install
    on this Python: no extras, markers evaluated."""
    return requirement.marker is None or requirement.marker.evaluate({"extra": ""})
