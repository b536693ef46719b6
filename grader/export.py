"""Package the grader to run on a platform: Gradescope's setup.sh, run_autograder and autograder.zip."""

from __future__ import annotations

import secrets
import shutil
import zipfile
from pathlib import Path

import grader
import reference
from grader.catalog import ASSIGNMENTS, Catalog

SETUP = """\
#!/usr/bin/env bash
# Gradescope runs this once, when it builds the autograder's image.
set -euo pipefail
apt-get update -q
apt-get install -y -q python3.11 python3.11-venv
python3.11 -m venv /autograder/venv
# The CPU build of torch: a plain `pip install torch` pulls a multi-GB CUDA build.
/autograder/venv/bin/pip install -q torch --index-url https://download.pytorch.org/whl/cpu
/autograder/venv/bin/pip install -q "numpy>=1.24" "pyyaml>=6" "jsonschema>=4.18" "rich>=13" "nbformat>=5.9"
"""

RUN = """\
#!/usr/bin/env bash
# Gradescope runs this for every submission. Whatever happens, a results.json is written.
set -u
results=/autograder/results/results.json
mkdir -p /autograder/results
export PYTHONPATH=/autograder/source/src
submission=$(find /autograder/submission -maxdepth 2 -type f \\( -name '*.ipynb' -o -name '*.py' \\) | sort | head -n 1)
if [ -n "$submission" ]; then
  /autograder/venv/bin/python -m grader "$submission" {which} --seed {seed} --device cpu \\
    --exercises /autograder/source/exercises --format gradescope --output "$results"
fi
if [ ! -s "$results" ]; then
  /autograder/venv/bin/python - "$results" "$submission" <<'PY'
import json, sys
from grader.formats.gradescope import gradescope_failure
found = sys.argv[2] if len(sys.argv) > 2 else ""
reason = "No .py file or notebook was found in your submission." if not found else \\
    "The autograder could not grade your submission. This is not your fault: tell your instructor."
with open(sys.argv[1], "w") as out:
    json.dump(gradescope_failure(reason), out)
PY
fi
"""


def export_gradescope(catalog: Catalog, out: Path, *, exercise: str | None = None, assignment: str | None = None,
                      seed: int | None = None) -> Path:
    """Write setup.sh, run_autograder, the grader's source and the exercises; zip them; return the zip.

    The seed is chosen here, once, unless given: the official grade then uses inputs that no student
    saw when grading their work locally with the default seed.
    """
    if assignment is not None:
        _, exercises = catalog.load_assignment(assignment)
        which = f"--assignment {assignment}"
    elif exercise is not None:
        exercises = [catalog.load(exercise)]
        which = f"--exercise {exercise}"
    else:
        raise ValueError("an exercise or an assignment")
    out.mkdir(parents=True, exist_ok=True)
    (out / "setup.sh").write_text(SETUP)
    (out / "run_autograder").write_text(RUN.format(which=which, seed=secrets.randbelow(10**9) if seed is None
                                                   else seed))
    for script in ("setup.sh", "run_autograder"):
        (out / script).chmod(0o755)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for package in (grader, reference):
        assert package.__file__ is not None  # both are regular packages
        source = Path(package.__file__).parent
        shutil.copytree(source, out / "src" / source.name, ignore=ignore, dirs_exist_ok=True)
    for e in exercises:
        shutil.copytree(e.folder, out / "exercises" / e.id, ignore=ignore, dirs_exist_ok=True)
    if assignment is not None:
        (out / "exercises" / ASSIGNMENTS).mkdir(parents=True, exist_ok=True)
        shutil.copy(catalog.root / ASSIGNMENTS / f"{assignment}.yaml", out / "exercises" / ASSIGNMENTS)
    archive = out / "autograder.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zipped:  # the files at the root, as required
        for path in sorted(p for p in out.rglob("*") if p.is_file() and p != archive):
            info = zipfile.ZipInfo.from_file(path, path.relative_to(out).as_posix())
            info.date_time = (2026, 1, 1, 0, 0, 0)  # the same bytes on every export of the same files
            zipped.writestr(info, path.read_bytes())
    return archive
