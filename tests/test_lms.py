"""LMS bulk downloads (docs/lms-downloads.md): fixtures written to each LMS's naming, read and graded."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from grader.cli import main
from grader.course.lms.downloads import detect, read_download
from grader.course.roster import read_roster

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "lms"
Capture = pytest.CaptureFixture[str]


def test_each_layout_is_detected() -> None:
    for name in ("canvas", "gradescope", "moodle"):
        assert detect(FIXTURES / name) == name
    assert detect(FIXTURES / "moodle-flat") == "moodle"
    assert detect(FIXTURES / "gradescope" / "assignment_4242_export") == "gradescope"
    assert detect(Path(__file__).resolve().parent.parent / "submissions" / "node-mul") == "plain"


def test_canvas_names_give_back_who_and_the_students_own_file_names() -> None:
    download = read_download(FIXTURES / "canvas", "canvas")
    found = {f.key: f for f in download.found}
    assert sorted(found) == ["12345", "23456", "34567", "45678"]  # Canvas user ids
    assert sorted(f.name for f in found["12345"].files) == ["engine.py", "helpers.py"]
    assert found["12345"].name == "doejane" and found["12345"].origin == "doejane_12345" and not found["12345"].late
    assert found["23456"].late and found["23456"].name == "smithbob"
    assert [f.name for f in found["34567"].files] == ["text.html"]  # a text entry: nothing to grade
    assert [f.name for f in found["45678"].files] == ["mul.py"]  # mul-1.py: Canvas renamed a re-upload
    assert download.ignored == []


@pytest.mark.parametrize("name", ["doejane_12345_9876501_engine.py", "doejane_LATE_12345_9876501_engine.py",
                                  "doejane_late_12345_9876501_engine.py", "anon_Xq7zP_9876501_engine.py",
                                  "LATE_anon_Xq7zP_9876501_engine.py"])
def test_canvas_prefixes_late_and_anonymous(tmp_path: Path, name: str) -> None:
    (tmp_path / name).write_text("x = 1\n")
    (found,) = read_download(tmp_path, "canvas").found
    assert found.key == ("anon_Xq7zP" if "anon" in name else "12345")
    assert found.late == ("late" in name.casefold())
    assert [f.name for f in found.files] == ["engine.py"]


def test_a_file_canvas_did_not_name_is_ignored_not_a_student(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "canvas", tmp_path / "class")
    (tmp_path / "class" / "notes.txt").write_text("mine")
    download = read_download(tmp_path / "class", "canvas")
    assert download.ignored == ["notes.txt"] and len(download.found) == 4
    assert detect(tmp_path / "class") == "canvas"  # most entries are Canvas's: the note is a stray, skipped


def test_gradescope_metadata_names_every_submitter_of_a_group() -> None:
    download = read_download(FIXTURES / "gradescope")
    by_key = {f.key: f for f in download.found}
    assert sorted(by_key) == ["1001", "1002", "1004", "ana@example.edu"]  # Ana has no SID: her email
    assert by_key["1002"].files == by_key["ana@example.edu"].files  # the group's files, for each member
    assert [f.name for f in by_key["1002"].files] == ["node.py"] and by_key["1002"].name == "Bob Smith"
    assert by_key["ana@example.edu"].email == "ana@example.edu" and by_key["1001"].sis_id == "1001"
    assert by_key["1001"].origin == "submission_1001"


def test_moodle_in_folders_and_flat_read_alike() -> None:
    for folder in ("moodle", "moodle-flat"):
        found = {f.key: f for f in read_download(FIXTURES / folder).found}
        assert sorted(found) == ["1234567", "2345678", "3456789"], folder
        assert found["1234567"].name == "Jane Doe"
        assert sorted(f.name for f in found["1234567"].files) == ["engine.py", "helpers.py"], folder
        assert [f.name for f in found["2345678"].files] == ["node.py"], folder
        assert [f.name for f in found["3456789"].files] == ["onlinetext.html"], folder


def test_a_roster_matches_by_id_email_or_participant(tmp_path: Path) -> None:
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name,email,sis_user_id\nParticipant 1234567,Jane Doe,,\nu-ana,Ana Lee,ANA@example.edu,\n"
                      "u-bob,Bob Smith,,1002\n")
    people = read_roster(roster)
    by_key = {f.key: f for f in read_download(FIXTURES / "gradescope").found}
    ana, bob = people.match(by_key["ana@example.edu"]), people.match(by_key["1002"])
    assert ana is not None and ana.id == "u-ana" and ana.submission == "submission_1002"
    assert bob is not None and bob.id == "u-bob"
    jane = people.match(next(f for f in read_download(FIXTURES / "moodle").found if f.key == "1234567"))
    assert jane is not None and jane.id == "Participant 1234567"


def test_a_class_from_a_canvas_download_has_every_student_accounted_for(tmp_path: Path, capsys: Capture) -> None:
    """Multi-file folders, Canvas's names, blank roster rows and files not on the roster, all in one class."""
    folder = tmp_path / "download"
    shutil.copytree(FIXTURES / "canvas", folder)
    shutil.copy(FIXTURES / "canvas" / "smithbob_LATE_23456_9876503_node.py", folder / "stranger_99999_1_x.py")
    roster = tmp_path / "roster.csv"
    roster.write_text("submission,id,name,sis_user_id,section\n,12345,\"Doe, Jane\",S1,A\n,23456,\"Smith, Bob\",S2,A\n"
                      ",34567,\"Lee, Ana\",S3,B\n,45678,\"Nguyen, Mai\",S4,B\n,56789,\"Absent, Sam\",S5,B\n")
    out = tmp_path / "reports"
    assert main(["batch", str(folder), "--out", str(out), "--exercise", "node-mul", "--roster", str(roster),
                 "-j", "2"]) == 0
    printed = capsys.readouterr()
    assert "5 students in" in printed.out and "(canvas names)" in printed.out
    assert "not on the roster, kept apart and not graded: stranger_99999" in printed.err
    done = {p.parent.name: json.loads(p.read_text()) for p in (out / "students").glob("*/done.json")}
    assert {k: v["outcome"] for k, v in done.items()} == {"12345": "graded", "23456": "graded",
                                                         "34567": "unreadable", "45678": "graded",
                                                         "56789": "missing"}
    reports = {k: json.loads((out / "students" / k / "report.json").read_text()) for k in done}
    # each report names the file it graded, as it lies in the download
    assert reports["12345"]["submission"]["path"] == "doejane_12345_9876501_engine.py"
    assert reports["12345"]["score"] == 10
    assert reports["12345"]["notes"][0] == ("Graded engine.py (the only file that defines `Node`); importable "
                                            "beside it: helpers.py.")
    assert reports["23456"]["submission"]["path"] == "smithbob_LATE_23456_9876503_node.py"
    assert reports["23456"]["score"] == 1
    assert reports["45678"]["submission"]["path"] == "nguyenmai_45678_9876505_mul-1.py"
    assert "No .py file or notebook was handed in (it holds text.html)" in reports["34567"]["problems"][0]
    assert reports["56789"]["problems"] == ["No submission was found for this student."]
    with (out / "gradebook.csv").open(newline="") as handle:
        rows = {r[1]: r for r in csv.reader(handle)}
    assert set(rows) == {"ID", "", "12345", "23456", "34567", "45678", "56789"}  # header, Points Possible, 5
    assert rows["56789"][0] == "Absent, Sam" and rows["56789"][5] == "0" and rows["34567"][5] == "0"
    summary = json.loads((out / "summary.json").read_text())
    assert summary["counts"] == {**summary["counts"], "students": 5, "graded": 3, "unreadable": 1, "missing": 1,
                                 "not_on_roster": 1}
    kinds = {a["kind"]: [s["name"] for s in a["students"]] for a in summary["attention"]}
    assert kinds == {"unreadable": ["Lee, Ana"], "missing": ["Absent, Sam"], "late": ["Smith, Bob"],
                     "not-on-roster": ["stranger_99999"]}
    manifest = json.loads((out / "batch.json").read_text())
    assert manifest["names"] == "canvas" and manifest["not_on_roster"] == ["stranger_99999"]


@pytest.mark.parametrize("layout", ["gradescope", "moodle", "moodle-flat"])
def test_gradescope_and_moodle_downloads_grade_every_student(layout: str, tmp_path: Path) -> None:
    out = tmp_path / "reports"
    assert main(["batch", str(FIXTURES / layout), "--out", str(out), "--exercise", "node-mul", "-j", "1"]) == 0
    done = {json.loads(p.read_text())["student"]["name"]: json.loads(p.read_text())["outcome"]
            for p in (out / "students").glob("*/done.json")}
    scores = {json.loads((p.parent / "done.json").read_text())["student"]["name"]: json.loads(p.read_text())["score"]
              for p in (out / "students").glob("*/report.json")}
    if layout == "gradescope":  # Bob and Ana handed in one group submission: both are graded on it
        assert done == {"Jane Doe": "graded", "Bob Smith": "graded", "Ana Lee": "graded", "Mai Nguyen": "graded"}
        assert scores == {"Jane Doe": 10, "Bob Smith": 1, "Ana Lee": 1, "Mai Nguyen": 0}
    else:  # Ana wrote in the online text box: nothing to grade, and she is still on the list
        assert done == {"Jane Doe": "graded", "Bob Smith": "graded", "Ana Lee": "unreadable"}
        assert scores == {"Jane Doe": 10, "Bob Smith": 1, "Ana Lee": 0}
