"""A library course's class: `grade batch` of a folder of repositories (one per student, as a class's repositories
are cloned, or zipped), `grade submit FOLDER` to a real `grade serve` (the client sends the course's files only, the
server takes and grades them under the same caps), and `grade release` of a library course (its pack carries the
starter repository and expected values, no reference)."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import tarfile
import zipfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import yaml
from service_helpers import ROOT, grade, issue_tokens, serving

from grader.cli import main
from grader.core.library import Library
from grader.judge.catalog import Catalog
from grader.run.read.package import package_zip, read_package
from grader.service.uploads import Refused, vet

COURSE = ROOT / "examples" / "courses" / "minitorch-module1"
LIBRARY = Catalog(COURSE).library()
FUNCTIONS = "minitorch/scalar_functions.py"


def check_upload(content: bytes, name: str, cap: int, library: Library | None) -> Refused | str:
    """grader.service.uploads.vet, with its refusal returned rather than raised."""
    try:
        return vet(content, name, cap, library)
    except Refused as refused:
        return refused


LATER = (datetime.now(UTC) + timedelta(days=7)).strftime("%Y-%m-%dT%H:%M:%SZ")


def _clone(folder: Path, source: Path = COURSE / "reference", broken: tuple[str, str] | None = None) -> Path:
    """`source` as a student's clone: their tests, a conftest.py that runs code, and data beside the package."""
    shutil.copytree(source, folder)
    (folder / "tests").mkdir()
    (folder / "tests" / "test_scalar.py").write_text("raise SystemExit('never read')\n")
    (folder / "conftest.py").write_text("import os\nos.system('touch /tmp/pwned')\n")
    (folder / "setup.py").write_text("raise SystemExit('never run')\n")
    if broken is not None:
        text = (folder / FUNCTIONS).read_text()
        assert broken[0] in text
        (folder / FUNCTIONS).write_text(text.replace(*broken))
    return folder


@pytest.mark.slow
def test_a_batch_grades_a_folder_of_repositories_cloned_or_archived(tmp_path: Path) -> None:
    """alice's clone, bob's starter as a zip, carol's tarball with a broken Sigmoid.backward, dave's folder without
    the course's files (unreadable, and told why), and a README that is no one's."""
    klass = tmp_path / "class"
    klass.mkdir()
    _clone(klass / "alice")
    with zipfile.ZipFile(klass / "bob.zip", "w") as archive:
        for path in sorted((COURSE / "starter").rglob("*.py")):
            archive.write(path, f"bob-main/{path.relative_to(COURSE / 'starter').as_posix()}")
    carol = _clone(tmp_path / "carol", broken=("return out * (1.0 - out) * d_output", "return out * (1.0 - out)"))
    with tarfile.open(klass / "carol.tar.gz", "w:gz") as archive:
        archive.add(carol, "carol")
    (klass / "dave").mkdir()
    (klass / "dave" / "notes.py").write_text("x = 1\n")
    (klass / "README.md").write_text("the class\n")
    out = tmp_path / "reports"
    assert main(["batch", str(klass), "--out", str(out), "--exercises", str(COURSE), "-j", "2", "--seed", "1"]) == 0
    rows = {row["Student"]: row for row in csv.DictReader(io.StringIO((out / "gradebook.csv").read_text()))}
    assert set(rows) == {"Points Possible", "alice", "bob", "carol", "dave"}
    assert rows["alice"]["functions-backward"] == rows["Points Possible"]["functions-backward"] == "14"
    assert rows["carol"]["functions-backward"] == "12" and rows["carol"]["scalar"] == "10"
    assert rows["bob"]["autodiff"] == "0" and rows["dave"]["scalar"] == "0"
    dave = (out / "students" / "dave" / "report.json").read_text()
    assert "holds none of the files this course takes (minitorch/*.py)" in dave
    assert not Path("/tmp/pwned").exists() or Path("/tmp/pwned").stat().st_mtime < klass.stat().st_mtime


def test_the_client_packs_the_courses_files_alone_the_same_bytes_each_time(tmp_path: Path) -> None:
    assert LIBRARY is not None
    repo = _clone(tmp_path / "repo")
    packed = package_zip(repo, LIBRARY)
    assert packed == package_zip(repo, LIBRARY)
    names = zipfile.ZipFile(io.BytesIO(packed)).namelist()
    assert names == sorted(f"minitorch/{p.name}" for p in (COURSE / "reference" / "minitorch").glob("*.py"))
    stored = tmp_path / "stored.zip"
    stored.write_bytes(packed)
    assert read_package(stored, LIBRARY).sha256 == read_package(repo, LIBRARY).sha256


def test_the_server_takes_a_library_upload_only_as_a_zip_of_the_courses_files(tmp_path: Path) -> None:
    assert LIBRARY is not None
    repo = _clone(tmp_path / "repo")
    assert check_upload(package_zip(repo, LIBRARY), "repo.zip", 1 << 20, LIBRARY) == ".zip"
    code = (COURSE / "reference" / FUNCTIONS).read_bytes()
    refused = check_upload(code, "scalar_functions.py", 1 << 20, LIBRARY)
    assert isinstance(refused, Refused) and refused.status == 415 and "grade submit FOLDER" in refused.message
    other = io.BytesIO()
    with zipfile.ZipFile(other, "w") as archive:
        archive.writestr("notes/readme.py", "x = 1\n")
    refused = check_upload(other.getvalue(), "repo.zip", 1 << 20, LIBRARY)
    assert isinstance(refused, Refused) and refused.status == 422 and "minitorch/*.py" in refused.message
    assert str(tmp_path) not in refused.message
    refused = check_upload(package_zip(repo, LIBRARY), "repo.zip", 100, LIBRARY)
    assert isinstance(refused, Refused) and refused.status == 413


@pytest.mark.slow
def test_grade_submit_of_a_folder_is_graded_by_the_server(tmp_path: Path) -> None:
    course = tmp_path / "course"
    course.mkdir()
    (course / "roster.csv").write_text("id,name,email\ns1,Student s1,s1@example.edu\n")
    (course / "course.toml").write_text(f'''name = "minitorch"
exercises = "{COURSE}"
roster = "roster.csv"
max_upload_kib = 256
isolation = "landlock"

[assignments.module1]
exercises = ["functions-forward", "functions-backward"]
deadline = {LATER}
''')
    token = issue_tokens(course)["s1"]
    repo = _clone(tmp_path / "repo", broken=("        return operators.neg(d_output)", "        return d_output"))
    with serving(course) as server:
        done = server.submit(token, str(repo), "--assignment", "module1", "--exercises", str(COURSE))
        refused = server.submit(token, str(COURSE / "reference" / FUNCTIONS), "--assignment", "module1",
                                "--exercises", str(COURSE))
    assert done.returncode == 1, done.stdout + done.stderr  # points lost: Neg's backward
    assert "Received: submission 1 for module1" in done.stdout
    assert "Score: 25/26" in done.stdout and "FAIL   neg" in done.stdout, done.stdout
    assert refused.returncode != 0 and "not a zip archive" in refused.stderr + refused.stdout


@pytest.mark.slow
def test_a_library_pack_carries_the_starter_and_expected_values_and_no_reference(tmp_path: Path) -> None:
    pack = tmp_path / "pack"
    done = grade("release", "--exercises", str(COURSE), "--out", str(pack))
    assert done.returncode == 0, done.stdout + done.stderr
    assert (pack / FUNCTIONS).read_text() == (COURSE / "starter" / FUNCTIONS).read_text()
    assert (pack / "exercises" / "starter" / "minitorch" / "operators.py").is_file()
    assert (pack / "exercises" / "scalar" / "expected.json").is_file()
    settings = yaml.safe_load((pack / "exercises" / "course.yaml").read_text())
    assert not list(pack.rglob("mutants")) and "reference" not in settings["package"]
    reference_code = (COURSE / "reference" / FUNCTIONS).read_text()
    assert not any(p.read_text(errors="replace") == reference_code for p in pack.rglob("*.py"))
    mine = grade(".", cwd=pack)  # the student's repository is the pack: `grade .`, as its README says
    assert mine.returncode == 1 and "Score: 3/56" in mine.stdout, mine.stdout + mine.stderr
    full = grade(str(COURSE / "reference"), "--exercises", str(pack / "exercises"))
    assert full.returncode == 0 and "Score: 56/56" in full.stdout, full.stdout + full.stderr
    assert "This pack holds none of the course's reference code" in full.stdout


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0, reason="the batch's isolation guarantees are root's (see the README)")
def test_a_class_of_hostile_repositories_scores_no_more_than_each_may(tmp_path: Path) -> None:
    """submissions/hostile-library's minitorch repositories batched as a class with an honest one: each scores
    what its expectation says at most, the links one is unreadable, no marker file of theirs exists after, the
    course's reference is unchanged, and the honest student keeps full marks."""
    hostile = ROOT / "submissions" / "hostile-library"
    klass = tmp_path / "class"
    expected = {}
    for path in sorted(hostile.glob("*.expect.yaml")):
        expect = yaml.safe_load(path.read_text())
        if expect["exercises"] == "examples/courses/minitorch-module1":
            name = path.name.removesuffix(".expect.yaml")
            shutil.copytree(hostile / name, klass / name, symlinks=True)
            expected[name] = expect
    _clone(klass / "honest")
    markers = [Path("/tmp/hostile-library-conftest-ran"), Path("/tmp/hostile-library-setup-ran")]
    for marker in markers:
        marker.unlink(missing_ok=True)
    before = {p: p.read_bytes() for p in (COURSE / "reference").rglob("*.py")}
    out = tmp_path / "reports"
    assert main(["batch", str(klass), "--out", str(out), "--exercises", str(COURSE), "-j", "2"]) == 0
    for name, expect in [*expected.items(), ("honest", {"score": 56})]:
        report = json.loads((out / "students" / name / "report.json").read_text())
        done = json.loads((out / "students" / name / "done.json").read_text())
        assert report["score"] <= expect["score"], (name, report["score"])
        assert done["outcome"] == expect.get("outcome", "graded"), (name, done["outcome"])
    assert json.loads((out / "students" / "honest" / "report.json").read_text())["score"] == 56
    assert not [marker for marker in markers if marker.exists()]
    assert {p: p.read_bytes() for p in (COURSE / "reference").rglob("*.py")} == before
