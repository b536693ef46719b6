"""Class downloads as instructors get them: stray files, odd rosters, reused report folders.

Each download is laid out as its LMS names it (docs/lms-downloads.md), with what lands in real ones: a README,
the roster itself, a second copy of the zip, the grading worksheet. Each either grades every student or is
refused in one line (exit 2) that says what was found and what to give instead.
"""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from grader.cli import main
from grader.course.roster import read_roster

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "submissions" / "node-mul"
Capture = pytest.CaptureFixture[str]
#: Canvas user id -> (sortable name, Canvas's prefix, the sample handed in, SIS id)
CANVAS = {
    "1010": ("Foster, Fay", "fosterfay", "correct_lesson_style", "S1010"),
    "1011": ("Gupta, Raj", "guptaraj", "swapped_slopes", "S1011"),
    "1012": ("Hill, Ann", "hillann", "syntax_error", "S1012"),
    "1013": ("Ito, Ken", "itoken", "overwrite", "S1013"),
    "1014": ("Jones, Lu", "joneslu", "no_rmul", "S1014"),
}


def canvas_download(folder: Path) -> Path:
    """Canvas's Download Submissions, unzipped: one flat folder; Fay handed in engine.py and helpers.py."""
    folder.mkdir(parents=True)
    for number, (user, (_, prefix, sample, _)) in enumerate(CANVAS.items()):
        late = "_LATE" if user == "1013" else ""
        shutil.copy(SAMPLES / f"{sample}.py", folder / f"{prefix}{late}_{user}_{55510 + number}_engine.py")
    (folder / "fosterfay_1010_55599_helpers.py").write_text("SCALE = 1.0\n")
    return folder


def roster_csv(path: Path, users: dict[str, tuple[str, str, str, str]] = CANVAS) -> Path:
    rows = [f'"{name}",{user},lti-{user}-9f2c,{sis},A' for user, (name, _, _, sis) in users.items()]
    path.write_text("name,id,lti_user_id,sis_user_id,section\n" + "\n".join(rows) + "\n")
    return path


def batch(folder: Path, out: Path, *extra: str) -> int:
    return main(["batch", str(folder), "--out", str(out), "--exercise", "node-mul", "-j", "1", *extra])


def outcomes(out: Path) -> dict[str, str]:
    return {json.loads(p.read_text())["student"]["id"]: json.loads(p.read_text())["outcome"]
            for p in (out / "students").glob("*/done.json")}


def test_strays_in_a_canvas_download_are_skipped_and_every_student_graded(tmp_path: Path, capsys: Capture) -> None:
    folder = canvas_download(tmp_path / "download")
    (folder / "README.txt").write_text("Submissions for HW3")
    roster = roster_csv(tmp_path / "roster.csv")
    shutil.copy(roster, folder / "roster.csv")  # the roster itself, dropped in
    (folder / "__MACOSX").mkdir()
    assert batch(folder, tmp_path / "with-roster", "--roster", str(roster)) == 0
    printed = capsys.readouterr()
    assert "5 students in" in printed.out and "(canvas names)" in printed.out
    assert "skipped, not a submission in canvas names: README.txt, roster.csv" in printed.err
    assert outcomes(tmp_path / "with-roster") == {"1010": "graded", "1011": "graded", "1012": "graded",
                                                  "1013": "graded", "1014": "graded"}
    summary = json.loads((tmp_path / "with-roster" / "summary.json").read_text())
    groups = {a["kind"]: [f["name"] for f in a["students"]] for a in summary["attention"]}
    assert groups["skipped"] == ["README.txt", "roster.csv"]
    assert groups["zero"] == ["Hill, Ann"]  # her file never loaded: a 0 she can fix, named with the reason
    assert "Skipped entries" in (tmp_path / "with-roster" / "summary.html").read_text()
    # Without a roster, each Canvas user is one student, named by their user id: helpers.py is Fay's, not a student
    assert batch(folder, tmp_path / "no-roster") == 0
    assert sorted(outcomes(tmp_path / "no-roster")) == sorted(CANVAS)
    fay = json.loads((tmp_path / "no-roster" / "students" / "1010" / "report.json").read_text())
    assert fay["score"] == 10 and "importable beside it: helpers.py" in fay["notes"][0]


def test_moodle_and_gradescope_downloads_with_strays(tmp_path: Path, capsys: Capture) -> None:
    moodle = tmp_path / "moodle"
    shutil.copytree(ROOT / "tests" / "fixtures" / "lms" / "moodle", moodle)
    (moodle / "grading worksheet.csv").write_text("Identifier,Full name\n")
    (moodle / "index.html").write_text("<html></html>")
    assert batch(moodle, tmp_path / "m") == 0
    assert "skipped, not a submission in moodle names: grading worksheet.csv, index.html" in capsys.readouterr().err
    assert sorted(outcomes(tmp_path / "m")) == ["1234567", "2345678", "3456789"]
    gradescope = tmp_path / "gradescope"
    shutil.copytree(ROOT / "tests" / "fixtures" / "lms" / "gradescope", gradescope)
    export = gradescope / "assignment_4242_export"
    (export / "submission_9999").mkdir()  # a folder the metadata does not list: nobody's
    shutil.copy(SAMPLES / "correct_lesson_style.py", export / "submission_9999" / "node.py")
    (export / "notes.md").write_text("regrade requests")
    assert batch(gradescope, tmp_path / "g") == 0
    err = capsys.readouterr().err
    assert "skipped, not a submission in gradescope names: notes.md, submission_9999" in err
    assert len(outcomes(tmp_path / "g")) == 4


def test_a_roster_that_does_not_fit_the_download_is_refused_saying_which_names_fit(tmp_path: Path,
                                                                                   capsys: Capture) -> None:
    folder = canvas_download(tmp_path / "download")
    roster = roster_csv(tmp_path / "roster.csv")
    # --names plain: every file its own "student", none of them a roster id: the class would be all missing
    assert batch(folder, tmp_path / "r1", "--roster", str(roster), "--names", "plain") == 2
    err = capsys.readouterr().err
    assert "5 of the roster's 5 students match nothing in it, read as plain names" in err
    assert "Read as canvas names, 5 of them match: give --names canvas." in err
    assert not (tmp_path / "r1").exists()  # refused before anything was written
    # the roster's ids are not the download's (emails where Canvas user ids belong)
    emails = "".join(f"u{user}@example.edu,{who[1]}\n" for user, who in CANVAS.items())
    (tmp_path / "emails.csv").write_text("id,name\n" + emails)
    assert batch(folder, tmp_path / "r2", "--roster", str(tmp_path / "emails.csv")) == 2
    err = capsys.readouterr().err
    assert "read as canvas names (5 submissions such as fosterfay_1010" in err
    assert "the roster's ids are such as u1010@example.edu" in err and "id column must hold the LMS's ids" in err
    # --names moodle on a Canvas download: most entries do not follow it
    assert batch(folder, tmp_path / "r3", "--names", "moodle") == 2
    err = capsys.readouterr().err
    assert "6 of its 6 entries do not follow moodle names" in err
    assert "6 of them follow canvas names: give --names canvas." in err


def test_a_folder_of_no_submissions_or_mostly_missing_students_never_exits_0(tmp_path: Path, capsys: Capture) -> None:
    folder = tmp_path / "download"
    folder.mkdir()
    for name in ("submissions.zip", "syllabus.pdf", "grades.xlsx"):
        (folder / name).write_bytes(b"PK\x03\x04")
    shutil.copy(SAMPLES / "correct_lesson_style.py", folder / "mine.py")
    assert batch(folder, tmp_path / "r1") == 2
    err = capsys.readouterr().err
    assert "most of its 4 entries fit no layout" in err and "0 canvas, 0 moodle, 1 plain" in err
    assert "Unzip the LMS's download" in err
    # One student of five handed in, and nothing else is there: graded, but not a batch to exit 0 on
    one = tmp_path / "one"
    one.mkdir()
    shutil.copy(SAMPLES / "correct_lesson_style.py", one / "fosterfay_1010_55510_engine.py")
    assert batch(one, tmp_path / "r2", "--roster", str(roster_csv(tmp_path / "roster.csv"))) == 2
    printed = capsys.readouterr()
    assert "graded 1, unreadable 0, missing 4" in printed.out
    assert "error: 4 of the 5 students have no submission: the gradebook would be mostly zeros" in printed.err


def test_out_holds_one_class(tmp_path: Path, capsys: Capture) -> None:
    first = canvas_download(tmp_path / "hw3")
    out = tmp_path / "reports"
    assert batch(first, out) == 0
    other = tmp_path / "other"
    other.mkdir()
    for name in ("correct_lesson_style", "swapped_slopes"):
        shutil.copy(SAMPLES / f"{name}.py", other / f"{name}.py")
    capsys.readouterr()
    assert batch(other, out) == 2  # another class into an old --out: refused, nothing mixed
    assert "holds the reports of an earlier batch (5 students, node-mul): give --resume" in capsys.readouterr().err
    assert batch(other, out, "--resume") == 2
    assert "holds another class's reports (5 students, node-mul; this batch: 2 students, node-mul)" in \
        capsys.readouterr().err
    assert batch(first, out, "--resume") == 0  # the same class goes on
    assert batch(other, out, "--force") == 0  # start over: the earlier class's reports are gone
    assert sorted(outcomes(out)) == ["correct_lesson_style", "swapped_slopes"]
    with (out / "gradebook.csv").open(newline="") as handle:
        assert len(list(csv.reader(handle))) == 2 + 2
    assert main(["feedback", str(out)]) == 0
    assert "wrote 2 feedback pages" in capsys.readouterr().out


def test_canvas_exports_and_our_gradebook_read_as_rosters(tmp_path: Path, capsys: Capture) -> None:
    export = tmp_path / "canvas-export.csv"
    lines = ["Student,ID,SIS User ID,SIS Login ID,Integration ID,Section,HW3 (4242),Current Score,Final Score",
             "    Points Possible,,,,,,10,(read only),(read only)",
             ",,,,,,Manual Posting,,"]
    lines += [f'"{name}",{user},{sis},{prefix},,A,,0,0' for user, (name, prefix, _, sis) in CANVAS.items()]
    lines.append('"Student, Test",9999,,,,A,,0,0')
    export.write_text("\n".join(lines) + "\n")
    people = {s.id: s for s in read_roster(export).students}
    assert sorted(people) == [*sorted(CANVAS), "9999"]
    assert people["1011"].name == "Gupta, Raj" and people["1011"].sis_user_id == "S1011"
    assert people["1011"].sis_login_id == "guptaraj" and people["1011"].section == "A"
    folder = canvas_download(tmp_path / "download")
    assert batch(folder, tmp_path / "reports", "--roster", str(export)) == 0
    # our own gradebook.csv, from that batch, is a roster for the next one
    again = {s.id: s for s in read_roster(tmp_path / "reports" / "gradebook.csv").students}
    assert again.keys() == people.keys() and again["1011"].name == "Gupta, Raj"
    assert batch(folder, tmp_path / "next", "--roster", str(tmp_path / "reports" / "gradebook.csv")) == 0


def test_one_roster_takes_a_class_from_the_download_to_canvas_and_an_ags_publish(tmp_path: Path,
                                                                                 capsys: Capture) -> None:
    """The gradebook carries the Canvas user id that Canvas's import matches; the LTI score, the roster's LTI
    user id, which AGS names a student by."""
    from ags_platform import Platform, running
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    folder = canvas_download(tmp_path / "download")
    roster = roster_csv(tmp_path / "roster.csv")
    out = tmp_path / "reports"
    assert batch(folder, out, "--roster", str(roster)) == 0
    with (out / "gradebook.csv").open(newline="") as handle:
        header, possible, *rows = list(csv.reader(handle))
    # Canvas's importer (gradebook_importer.rb): Student and ID lead, Section ends the student columns
    assert header[:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    assert possible[0] == "Points Possible"
    assert {r[1]: (r[0], r[2], r[5]) for r in rows} == {
        user: (name, sis, {"1010": "10", "1011": "1", "1012": "0", "1013": "3", "1014": "8"}[user])
        for user, (name, _, _, sis) in CANVAS.items()}
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    (tmp_path / "tool.pem").write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                          serialization.NoEncryption()))
    public = key.public_key().public_bytes(serialization.Encoding.PEM,
                                           serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    with running(Platform(client_id="grader-tool", key_id="k1", public_key=public)) as platform:
        settings = tmp_path / "lms.toml"
        settings.write_text(f'client_id = "grader-tool"\ntoken_url = "{platform.token_url}"\nkey_file = "tool.pem"\n'
                            f'key_id = "k1"\nlineitems = "{platform.lineitems}"\nbackoff = 0\n')
        assert main(["publish", "lti", str(out), "--platform", str(settings)]) == 0
    assert platform.problems == []
    assert {s["userId"]: s["scoreGiven"] for s in platform.scores} == {
        "lti-1010-9f2c": 10, "lti-1011-9f2c": 1, "lti-1012-9f2c": 0, "lti-1013-9f2c": 3, "lti-1014-9f2c": 8}
    assert "sent 5 scores" in capsys.readouterr().out


def test_ctrl_c_says_how_to_go_on(tmp_path: Path) -> None:
    import signal
    import subprocess
    import sys
    import time

    folder = tmp_path / "class"
    folder.mkdir()
    for i in range(6):
        shutil.copy(SAMPLES / ("infinite_loop.py" if i else "correct_lesson_style.py"), folder / f"s{i}.py")
    out = tmp_path / "reports"
    # Ctrl-C reaches a command in the terminal's foreground. A suite started as a background job hands its
    # children SIGINT ignored (as a shell does, and as the batch rightly keeps), so the batch starts with
    # SIGINT's default restored, as in a terminal.
    command = [sys.executable, "-m", "grader", "batch", str(folder), "--out", str(out), "--exercise",
               "node-mul", "-j", "1", "--time-limit", "5"]
    in_foreground = ("import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
                     "os.execv(sys.executable, sys.argv[1:])")
    process = subprocess.Popen([sys.executable, "-c", in_foreground, *command], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not (out / "students" / "s0" / "done.json").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)  # as Ctrl-C does
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130
    assert f"interrupted: every student graded so far is kept in {out}; run the same command with --resume" in err


def test_a_file_name_cannot_take_another_students_place_or_write_to_the_terminal(tmp_path: Path,
                                                                                 capsys: Capture) -> None:
    """As a student who read lms.py: an upload named like another student's Canvas file is still the uploader's
    (Canvas puts its own prefix first, and the first `_<id>_<id>_` is read); a stray's name with terminal
    escapes and a line break reaches the instructor's terminal as printable text."""
    folder = canvas_download(tmp_path / "download")
    # Raj (1011) uploads "fosterfay_1010_55510_engine.py": Canvas names it under Raj's own prefix and ids
    shutil.copy(SAMPLES / "correct_lesson_style.py", folder / "guptaraj_1011_55600_fosterfay_1010_55510_engine.py")
    (folder / "notes\x1b]0;pwned\x07\nline.txt").write_text("x")
    assert batch(folder, tmp_path / "r") == 0
    printed = capsys.readouterr()
    assert "\x1b" not in printed.err + printed.out and r"notes\x1b]0;pwned\x07\nline.txt" in printed.err
    fay = json.loads((tmp_path / "r" / "students" / "1010" / "report.json").read_text())
    raj = json.loads((tmp_path / "r" / "students" / "1011" / "report.json").read_text())
    assert fay["score"] == 10 and fay["submission"]["path"] == "fosterfay_1010_55510_engine.py"
    assert "guptaraj_1011_55600_fosterfay_1010_55510_engine.py" not in json.dumps(fay)  # not in Fay's files
    assert "fosterfay_1010_55510_engine.py" in json.dumps(raj)  # it is one of Raj's, under the name he gave it


def test_canvas_late_marker_is_reported_and_the_column_is_the_assignments(tmp_path: Path, capsys: Capture) -> None:
    """Canvas's _LATE (Ito handed in late) is said on the terminal and under "Needs attention", never silently
    dropped; and the gradebook's one column is the LMS assignment's title (--column), not the exercise's id."""
    folder = canvas_download(tmp_path / "download")
    roster = roster_csv(tmp_path / "roster.csv")
    out = tmp_path / "reports"
    assert batch(folder, out, "--roster", str(roster), "--column", "Homework 1 (4417)") == 0
    err = capsys.readouterr().err
    assert "marked late in the download (Canvas's _LATE), graded as any other" in err and ": 1013" in err, err
    summary = json.loads((out / "summary.json").read_text())
    late = next(a for a in summary["attention"] if a["kind"] == "late")
    assert [f["name"] for f in late["students"]] == ["Ito, Ken"] and "no late policy" in late["advice"]
    assert "Marked late by the LMS" in (out / "summary.html").read_text()
    with (out / "gradebook.csv").open(newline="") as handle:
        header, possible, *rows = list(csv.reader(handle))
    assert header[5:] == ["Homework 1 (4417)"] and possible[5:] == ["10"]
    assert {r[1]: r[5] for r in rows}["1010"] == "10"
