"""grade export gradescope: pinned as the README pins, torch only where needed, run in an /autograder-like root."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from grader.course.export import TORCH_PIN, export_gradescope
from grader.judge.catalog import Catalog

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "submissions"
ENGINE = (SAMPLES / "tiny-engine" / "correct_micrograd.py").read_text()


def test_the_readme_and_ci_pin_the_torch_the_export_installs() -> None:
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    assert re.findall(r"torch==([\d.]+)", readme) and set(re.findall(r"torch==([\d.]+)", readme)) == {TORCH_PIN}
    assert set(re.findall(r"torch==([\d.]+)", ci)) == {TORCH_PIN}


@pytest.mark.parametrize(("exercise", "torch"), [("tiny-engine", False), ("custom-sigmoid", True)])
def test_setup_pins_every_package_and_torch_only_where_needed(catalog: Catalog, tmp_path: Path, exercise: str,
                                                              torch: bool) -> None:
    export_gradescope(catalog, tmp_path, exercise=exercise, seed=1)
    setup = (tmp_path / "setup.sh").read_text()
    installs = [line for line in setup.splitlines() if "pip install" in line and not line.startswith("#")]
    assert all("-r" in line or f'"torch=={TORCH_PIN}"' in line for line in installs), installs
    assert (f'"torch=={TORCH_PIN}" --index-url https://download.pytorch.org/whl/cpu' in setup) == torch
    pins = [line for line in (tmp_path / "requirements.txt").read_text().splitlines() if not line.startswith("#")]
    assert pins and all(re.fullmatch(r"[a-z0-9._-]+==[\w.+!-]+", line) for line in pins), pins
    names = {line.split("==")[0] for line in pins}
    assert {"numpy", "pyyaml", "jsonschema", "rich", "nbformat", "packaging"} <= names and "torch" not in names
    assert "referencing" in names  # jsonschema's own requirements: the whole closure is pinned


def autograder_root(tmp_path: Path, catalog: Catalog, exercise: str, *, torch: bool) -> Path:
    """Gradescope's layout: the zip in source/, a venv, a submission folder; torch absent unless installed."""
    build = tmp_path / "build"
    archive = export_gradescope(catalog, build, exercise=exercise, seed=3)
    root = tmp_path / "autograder"
    with zipfile.ZipFile(archive) as zipped:
        zipped.extractall(root / "source")
    shutil.copy(root / "source" / "run_autograder", root / "run_autograder")
    (root / "run_autograder").chmod(0o755)
    (root / "submission").mkdir()
    # the venv's python is this one; where setup.sh installs no torch, torch cannot be imported
    shadow = tmp_path / "no-torch"
    (shadow / "torch").mkdir(parents=True)
    (shadow / "torch" / "__init__.py").write_text("raise ImportError('torch is not installed in this image')\n")
    python = root / "venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    hide = "" if torch else f'export PYTHONPATH="{shadow}:$PYTHONPATH"\n'  # ahead of site-packages
    python.write_text(f"#!/bin/sh\n{hide}exec {sys.executable} \"$@\"\n")
    python.chmod(python.stat().st_mode | stat.S_IXUSR)
    return root


def run_autograder(root: Path) -> dict[str, object]:
    done = subprocess.run(["bash", str(root / "run_autograder")], env={**os.environ, "AUTOGRADER_ROOT": str(root)},
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    results: dict[str, object] = json.loads((root / "results" / "results.json").read_text())
    return results


def test_the_exported_autograder_grades_the_engine_beside_a_helper(catalog: Catalog, tmp_path: Path) -> None:
    """The helper sorts first; the engine, the only file defining Node, is graded, and without torch."""
    root = autograder_root(tmp_path, catalog, "tiny-engine", torch=False)
    (root / "submission" / "aaa_helpers.py").write_text("def close(a, b):\n    return abs(a - b) < 1e-9\n")
    (root / "submission" / "engine.py").write_text(ENGINE)
    results = run_autograder(root)
    assert results["score"] == catalog.load("tiny-engine").points
    assert "Note: Graded engine.py (its '# exercise:' line names tiny-engine)" in str(results["output"])
    assert results["extra_data"]["seed"] == 3  # type: ignore[index]


def test_a_submission_with_no_answer_gets_its_reason(catalog: Catalog, tmp_path: Path) -> None:
    root = autograder_root(tmp_path, catalog, "tiny-engine", torch=False)
    undeclared = ENGINE.replace("# exercise: tiny-engine\n", "")
    (root / "submission" / "a.py").write_text(undeclared)
    (root / "submission" / "b.py").write_text(undeclared)
    results = run_autograder(root)
    assert results["score"] == 0 and results["tests"] == []
    output = str(results["output"])
    assert "could not tell which file to grade as exercise tiny-engine: 2 files define `Node`" in output
    assert "a.py (defines Node)" in output and "b.py (defines Node)" in output
    (root / "submission" / "a.py").unlink()
    (root / "submission" / "b.py").unlink()
    assert "No .py file or notebook was handed in" in str(run_autograder(root)["output"])


@pytest.mark.slow
def test_a_torch_exercise_runs_where_setup_installed_torch(catalog: Catalog, tmp_path: Path) -> None:
    root = autograder_root(tmp_path, catalog, "first-gradient", torch=True)
    shutil.copy(ROOT / "exercises" / "first-gradient" / "solution.py", root / "submission" / "answer.py")
    results = run_autograder(root)
    assert results["score"] == catalog.load("first-gradient").points
