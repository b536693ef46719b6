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

from grader.core.seeds import seed_from_token, submission_seed
from grader.course.pack.export import SECRET_IN_EXPORT, TORCH_PIN, UV_VERSION, UV_WHEELS, export_gradescope
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


def autograder_root(tmp_path: Path, catalog: Catalog, exercise: str, *, torch: bool, seed: int | None = 3) -> Path:
    """Gradescope's layout: the zip in source/, a venv, a submission folder; torch absent unless installed."""
    build = tmp_path / "build"
    archive = export_gradescope(catalog, build, exercise=exercise, seed=seed)
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


def test_the_exported_autograder_draws_each_seed_from_its_secret_which_no_submission_reads(
        catalog: Catalog, tmp_path: Path) -> None:
    root = autograder_root(tmp_path, catalog, "tiny-engine", torch=False, seed=None)
    kept = tmp_path / "build" / SECRET_IN_EXPORT  # the instructor's copy; the zip's is in source/
    secret = (root / "source" / SECRET_IN_EXPORT).read_bytes().strip()
    assert secret == kept.read_bytes().strip() and len(secret) >= 32
    script = (root / "run_autograder").read_text()
    assert "--secret-file" in script and "--seed" not in script
    # the submission tries to read the secret where the autograder keeps it, and to print it
    spy = ENGINE + f"\ntry:\n    print('SECRET', open({str(root / 'source' / SECRET_IN_EXPORT)!r}).read())\n" \
                   f"except OSError as exc:\n    print('no secret:', type(exc).__name__)\n"
    (root / "submission" / "engine.py").write_text(spy)
    results = run_autograder(root)
    assert secret.decode() not in json.dumps(results)
    extra: dict[str, object] = results["extra_data"]  # type: ignore[assignment]
    assert extra["seed"] is None and str(extra["seed_token"]).startswith("s1-")
    seed = seed_from_token(secret, str(extra["seed_token"]))
    assert seed == submission_seed(secret, spy.encode()).seed  # drawn from the file's own bytes
    again = subprocess.run([sys.executable, "-m", "grader", str(root / "submission" / "engine.py"), "--seed", str(seed),
                            "--exercises", str(root / "source" / "exercises"), "--format", "json"],
                           capture_output=True, text=True, cwd=ROOT, check=False)
    assert json.loads(again.stdout)["score"] == results["score"] == catalog.load("tiny-engine").points


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


@pytest.mark.slow
def test_students_see_no_internal_paths_and_hidden_checks_no_hint(catalog: Catalog, tmp_path: Path) -> None:
    """Gradescope's root, as it lays it out: source/ (the zip), submission/, results/results.json."""
    root = autograder_root(tmp_path, catalog, "node-mul", torch=False)
    for problem in ("no file", "syntax error", "a known mistake"):
        for old in (root / "submission").iterdir():
            old.unlink()
        if problem == "syntax error":
            shutil.copy(SAMPLES / "node-mul" / "syntax_error.py", root / "submission" / "node.py")
        elif problem == "a known mistake":
            shutil.copy(ROOT / "exercises" / "node-mul" / "mutants" / "swapped_locals.py", root / "submission")
        results = run_autograder(root)
        text = json.dumps(results)
        assert str(tmp_path) not in text and "/submission" not in text, (problem, text)
        if problem == "no file":
            assert str(results["output"]).endswith("Your submission: No .py file or notebook was handed in.")
        if problem == "syntax error":
            assert "SyntaxError" in str(results["output"]) and "line 18" in str(results["output"])
    tests = results["tests"]
    assert isinstance(tests, list)
    hidden = [t for t in tests if t["visibility"] == "after_published" and t["score"] < t["max_score"]]
    shown = [t for t in tests if t["visibility"] == "visible" and t["score"] < t["max_score"]]
    assert hidden and all("Likely mistake" not in t.get("output", "") and "Ran `" not in t.get("output", "")
                          for t in hidden)
    assert hidden[0]["output"] == "This hidden check did not pass; its details are withheld."
    assert any("Likely mistake (swapped-locals)" in t["output"] for t in shown)  # a public check keeps its hint


@pytest.mark.slow
def test_setup_builds_the_python_and_packages_run_autograder_runs_on(catalog: Catalog, tmp_path: Path) -> None:
    """setup.sh for real, as Gradescope runs it at build time (here the machine's python3 is 3.11, so its venv is
    used; on Gradescope's Ubuntu 22.04 image, whose python3 is 3.10, uv installs CPython 3.12 instead)."""
    build = tmp_path / "build"
    archive = export_gradescope(catalog, build, exercise="node-mul", seed=5)
    root = tmp_path / "autograder"
    with zipfile.ZipFile(archive) as zipped:
        zipped.extractall(root / "source")
    setup = root / "source" / "setup.sh"
    built = subprocess.run(["bash", str(setup)], capture_output=True, text=True, timeout=600, check=False,
                           env={**os.environ, "AUTOGRADER_ROOT": str(root), "PATH": "/usr/local/bin:/usr/bin:/bin"})
    assert built.returncode == 0, built.stderr[-2000:]
    assert "setup.sh: the grader runs on Python 3.1" in built.stdout and "autograd-grader" in built.stdout
    shutil.copy(root / "source" / "run_autograder", root / "run_autograder")
    (root / "submission").mkdir()
    shutil.copy(SAMPLES / "node-mul" / "correct_lesson_style.py", root / "submission" / "node.py")
    results = run_autograder(root)
    assert results["score"] == catalog.load("node-mul").points and results["extra_data"]["seed"] == 5  # type: ignore[index]


@pytest.mark.slow
def test_setup_fetches_a_pinned_uv_where_the_image_has_no_recent_python(catalog: Catalog, tmp_path: Path) -> None:
    """Gradescope's Ubuntu images carry python3 3.6, 3.8 or 3.10: setup.sh then fetches uv's wheel from PyPI,
    checks its sha256 and installs CPython with it. Here: the fetch, with the machine's python3 (the part of
    `uv python install` that downloads CPython needs GitHub, which this machine cannot reach)."""
    export_gradescope(catalog, tmp_path, exercise="node-mul", seed=1)
    setup = (tmp_path / "setup.sh").read_text()
    assert "apt-get install -y -q python3.11" not in setup  # not in Ubuntu 18.04 or 20.04
    assert 'uv" python install "$PYTHON_VERSION"' in setup and "sys.version_info < (3, 11)" in setup
    body = setup.split("\nrm -rf \"$venv\"\n")[0]  # the variables and functions, not the install itself
    fetched = subprocess.run(["bash", "-c", f"{body}\nfetch_uv && \"$root/uv/uv\" --version"], capture_output=True,
                             text=True, timeout=300, check=False, env={**os.environ, "AUTOGRADER_ROOT": str(tmp_path)})
    assert fetched.returncode == 0, fetched.stderr
    assert fetched.stdout.startswith(f"uv {UV_VERSION} ")
    # a wheel whose hash is not the pinned one is refused
    tampered = body.replace(UV_WHEELS["X86_64"][1], "0" * 64)
    refused = subprocess.run(["bash", "-c", f"{tampered}\nfetch_uv"], capture_output=True, text=True, timeout=300,
                             check=False, env={**os.environ, "AUTOGRADER_ROOT": str(tmp_path / "t")})
    assert refused.returncode != 0 and "sha256 is not the one pinned" in refused.stderr
