"""grade batch: a class at once, nothing lost when stopped, resumable, shardable, mergeable."""

from __future__ import annotations

import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import jsonschema
import pytest

from grader.cli import main
from grader.course import classlist
from grader.course.secret import write_new_secret
from grader.judge.catalog import Catalog
from grader.outputs.render_json import report_schema

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "submissions" / "node-mul"
Capture = pytest.CaptureFixture[str]


def make_class(folder: Path) -> Path:
    """A small class: right, wrong, broken, looping, exiting, unreadable, in files and folders."""
    folder.mkdir(parents=True)
    for name in ("correct_lesson_style", "swapped_slopes", "syntax_error", "infinite_loop", "os_exit"):
        shutil.copy(SAMPLES / f"{name}.py", folder / f"{name}.py")
    (folder / "binary.py").write_bytes(b"\x00\x01")
    (folder / "in_a_folder").mkdir()
    shutil.copy(SAMPLES / "overwrite.py", folder / "in_a_folder" / "node.py")
    (folder / "two_files").mkdir()
    for name in ("a.py", "b.py"):
        shutil.copy(SAMPLES / "overwrite.py", folder / "two_files" / name)
    (folder / "README.md").write_text("not a submission")
    (folder / ".hidden.py").write_text("raise SystemExit")
    return folder


def two_students(tmp_path: Path) -> Path:
    """A class of two node-mul submissions: one right (10/10), one with swapped slopes (1/10)."""
    folder = tmp_path / "class"
    folder.mkdir()
    for name in ("correct_lesson_style", "swapped_slopes"):
        shutil.copy(SAMPLES / f"{name}.py", folder / f"{name}.py")
    return folder


def students(out: Path) -> dict[str, dict[str, object]]:
    return {p.parent.name: json.loads(p.read_text()) for p in (out / "students").glob("*/done.json")}


def test_discovery_finds_one_entry_per_student(tmp_path: Path) -> None:
    folder = make_class(tmp_path / "class")
    found = classlist.discover(folder)
    entries = {e.student.id: e for e in found.entries}
    assert sorted(entries) == ["binary", "correct_lesson_style", "in_a_folder", "infinite_loop", "os_exit",
                               "swapped_slopes", "syntax_error", "two_files"]
    assert [f.path for f in entries["in_a_folder"].files] == [folder / "in_a_folder" / "node.py"]
    assert sorted(f.name for f in entries["two_files"].files) == ["a.py", "b.py"]
    assert found.names == "plain" and found.ignored == ("README.md",)


def test_a_roster_names_the_students_and_lists_who_sent_nothing(tmp_path: Path) -> None:
    folder = make_class(tmp_path / "class")
    roster = tmp_path / "roster.csv"
    roster.write_text("submission,id,name,section\ncorrect_lesson_style.py,u101,\"Doe, Jane\",A\n"
                      "swapped_slopes,u102,Bo Li,A\nsyntax_error.py,u103,Cy Ng,A\n"
                      "absent.py,u999,Sam Absent,B\n,u998,Blank Cell,B\n")
    found = classlist.discover(folder, roster)
    entries = {e.student.id: e for e in found.entries}
    assert entries["u101"].student.name == "Doe, Jane" and entries["u101"].student.section == "A"
    assert entries["u999"].missing and entries["u999"].files == ()
    assert entries["u998"].missing and entries["u998"].student.name == "Blank Cell"  # a blank submission cell
    # the rest of the folder is no roster student's: kept apart
    assert sorted(entries) == ["u101", "u102", "u103", "u998", "u999"]
    assert entries["u102"].origin == "swapped_slopes.py"  # the submission cell may leave out the suffix
    assert set(found.not_on_roster) == {"binary.py", "in_a_folder", "infinite_loop.py", "os_exit.py", "two_files"}


def test_shards_split_the_class_the_same_way_every_time(tmp_path: Path) -> None:
    entries = classlist.discover(make_class(tmp_path / "class")).entries
    shards = [classlist.shard(entries, f"{k}/3")[0] for k in (1, 2, 3)]
    ids = [e.student.id for part in shards for e in part]
    assert sorted(ids) == sorted(e.student.id for e in entries) and len(ids) == len(set(ids))
    assert [e.student.id for e in classlist.shard(entries, "2/3")[0]] == [e.student.id for e in shards[1]]
    with pytest.raises(Exception, match="write K/N"):
        classlist.shard(entries, "4/3")


@pytest.mark.slow
def test_a_batch_grades_everyone_and_writes_every_format(tmp_path: Path, capsys: Capture) -> None:
    folder = make_class(tmp_path / "class")
    out = tmp_path / "reports"
    code = main(["batch", str(folder), "--out", str(out), "--exercise", "node-mul", "-j", "2", "--time-limit", "1"])
    text = capsys.readouterr().out
    assert code == 0, text
    done = students(out)
    assert sorted(done) == ["binary", "correct_lesson_style", "in_a_folder", "infinite_loop", "os_exit",
                            "swapped_slopes", "syntax_error", "two_files"]
    # two copies of one file: both define Node and neither names the exercise, so neither can be chosen
    assert {name: marker["outcome"] for name, marker in done.items()}["two_files"] == "unreadable"
    for name in done:
        files = {p.name for p in (out / "students" / name).iterdir()}
        assert files == {"report.json", "results.json", "lti-score.json", "junit.xml", "feedback.html",
                         "done.json"}, name
        jsonschema.validate(json.loads((out / "students" / name / "report.json").read_text()), report_schema())
    scores = {name: json.loads((out / "students" / name / "report.json").read_text())["score"] for name in done}
    assert scores["correct_lesson_style"] == 10 and scores["swapped_slopes"] == 1 and scores["infinite_loop"] == 1
    assert scores["binary"] == 0 and scores["syntax_error"] == 0
    with (out / "gradebook.csv").open(newline="") as handle:
        rows = list(csv.reader(handle))
    assert rows[0][:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"] and rows[0][5] == "node-mul"
    assert rows[1][0] == "Points Possible" and float(rows[1][5]) == 10
    assert len(rows) == 2 + len(done)
    summary = json.loads((out / "summary.json").read_text())
    assert json.dumps(summary)  # the class summary is plain data
    assert (out / "summary.html").read_text().startswith("<!DOCTYPE html>")
    assert "graded 6, unreadable 2, missing 0, grader errors 0" in text


@pytest.mark.slow
def test_a_batch_killed_mid_run_resumes_with_one_report_per_student(tmp_path: Path) -> None:
    folder = tmp_path / "class"
    folder.mkdir()
    for i in range(24):  # slow enough to be caught in the middle: a third of them loop until the time limit
        sample = ("infinite_loop", "correct_lesson_style", "swapped_slopes")[i % 3]
        shutil.copy(SAMPLES / f"{sample}.py", folder / f"s{i:02d}.py")
    out = tmp_path / "reports"
    command = [sys.executable, "-m", "grader", "batch", str(folder), "--out", str(out), "--exercise", "node-mul",
               "-j", "2", "--time-limit", "1"]
    process = subprocess.Popen(command, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while len(students(out)) < 4 and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGKILL)  # as a CI timeout does: everything, at once
    process.wait()
    before = set(students(out))
    assert 4 <= len(before) < 24, "the batch should have been stopped in the middle"

    resumed = subprocess.run([*command, "--resume"], capture_output=True, text=True, check=False)
    assert resumed.returncode == 0, resumed.stderr
    assert f"({len(before)} already done)" in resumed.stdout
    after = students(out)
    assert sorted(after) == [f"s{i:02d}" for i in range(24)]
    assert len(list((out / "students").iterdir())) == 24  # no duplicates, nothing half-made
    assert not list(out.rglob("*.tmp"))
    with (out / "gradebook.csv").open(newline="") as handle:
        assert len(list(csv.reader(handle))) == 2 + 24


def _marked(token: bytes) -> list[tuple[int, int]]:
    """(pid, uid) of the live processes whose environment holds `token`."""
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if token in (proc / "environ").read_bytes():
                found.append((int(proc.name), proc.stat().st_uid))
        except OSError:  # gone meanwhile, or not ours to read
            continue
    return found


@pytest.mark.skipif(os.geteuid() != 0, reason="children run as their own uid, and only root sees them in /proc")
def test_a_batch_killed_with_9_leaves_nothing_running(tmp_path: Path) -> None:
    folder = tmp_path / "class"
    folder.mkdir()
    for i in range(4):
        shutil.copy(SAMPLES / "infinite_loop.py", folder / f"s{i}.py")
    # Zygotes start with little of the environment: the mark rides on TZ, which they keep (and their
    # children, forked, show the same environment block in /proc).
    token = f"UTC-grader-test-run-{os.getpid()}-{time.monotonic_ns()}"
    command = [sys.executable, "-m", "grader", "batch", str(folder), "--out", str(tmp_path / "reports"),
               "--exercise", "node-mul", "-j", "2", "--time-limit", "60"]
    process = subprocess.Popen(command, start_new_session=True, env={**os.environ, "TZ": token},
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 180  # a wait, not a timing: a loaded machine starts its zygotes late
    # zygotes and workers run as root; a sandboxed child, looping, as its own uid
    while not any(uid != 0 for _, uid in _marked(token.encode())) and time.monotonic() < deadline:
        assert process.poll() is None, f"the batch ended ({process.returncode}) before a child started"
        time.sleep(0.05)
    assert any(uid != 0 for _, uid in _marked(token.encode())), "no child ever started"
    os.killpg(process.pid, signal.SIGKILL)  # the batch's own group; children are in sessions of their own
    process.wait()
    deadline = time.monotonic() + 10
    while _marked(token.encode()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _marked(token.encode()) == []


@pytest.mark.parametrize("named", [["--exercise", "node-mul"], []], ids=["named-by-the-batch", "named-by-each-file"])
def test_a_batch_of_engine_exercises_never_imports_torch(named: list[str], tmp_path: Path) -> None:
    folder = two_students(tmp_path)
    out = tmp_path / "reports"
    script = ("import sys; from grader.cli import main; code = main(sys.argv[1:]); "
              "print('torch loaded' if 'torch' in sys.modules else 'no torch'); sys.exit(code)")
    done = subprocess.run([sys.executable, "-c", script, "batch", str(folder), "--out", str(out), *named, "-j", "2"],
                          capture_output=True, text=True, check=False, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().endswith("no torch")
    reports = {name: json.loads((out / "students" / name / "report.json").read_text()) for name in students(out)}
    assert {name: r["score"] for name, r in reports.items()} == {"correct_lesson_style": 10, "swapped_slopes": 1}
    named = {c["diagnosis"]["mistake"] for e in reports["swapped_slopes"]["exercises"] for c in e["checks"]
             if c.get("diagnosis")}
    assert named == {"swapped-locals"}


def test_resume_grades_only_what_changed(tmp_path: Path, capsys: Capture) -> None:
    folder = two_students(tmp_path)
    out = tmp_path / "reports"
    args = ["batch", str(folder), "--out", str(out), "--exercise", "node-mul", "-j", "1"]
    assert main(args) == 0
    shutil.copy(SAMPLES / "correct_lesson_style.py", folder / "swapped_slopes.py")  # resubmitted, fixed
    capsys.readouterr()
    assert main([*args, "--resume"]) == 0
    assert "grading 1 with 1 workers (1 already done)" in capsys.readouterr().out
    report = json.loads((out / "students" / "swapped_slopes" / "report.json").read_text())
    assert report["score"] == 10


def test_resume_clears_what_a_killed_run_left_half_written(tmp_path: Path, capsys: Capture) -> None:
    # The window a kill -9 can hit: done.json's temporary file written, not yet renamed into place.
    folder = two_students(tmp_path)
    out = tmp_path / "reports"
    args = ["batch", str(folder), "--out", str(out), "--exercise", "node-mul", "-j", "1"]
    assert main(args) == 0
    killed = out / "students" / "swapped_slopes"
    marker = (killed / "done.json").read_text()
    (killed / "done.json").unlink()
    (killed / ".done.json.999999.tmp").write_text(marker)
    (killed / ".report.json.999999.tmp").write_text("{")
    (out / ".summary.json.999999.tmp").write_text("{")
    capsys.readouterr()
    assert main([*args, "--resume"]) == 0
    assert "grading 1 with 1 workers (1 already done)" in capsys.readouterr().out
    assert sorted(students(out)) == ["correct_lesson_style", "swapped_slopes"]
    assert not list(out.rglob("*.tmp"))


def test_resume_grades_again_what_a_power_cut_left_empty(tmp_path: Path, capsys: Capture) -> None:
    # A student's files are not flushed one by one: after a power cut, ext4 may keep the renamed
    # done.json but an empty report.json. That student is not finished.
    folder = two_students(tmp_path)
    out = tmp_path / "reports"
    args = ["batch", str(folder), "--out", str(out), "--exercise", "node-mul", "-j", "1"]
    assert main(args) == 0
    (out / "students" / "swapped_slopes" / "report.json").write_text("")
    assert main(["merge", str(out), "--out", str(tmp_path / "merged")]) == 2
    assert "swapped_slopes: this student's files are damaged" in capsys.readouterr().err
    assert main([*args, "--resume"]) == 0
    assert "grading 1 with 1 workers (1 already done)" in capsys.readouterr().out
    assert json.loads((out / "students" / "swapped_slopes" / "report.json").read_text())["score"] == 1


def test_a_grader_error_costs_one_student_and_sets_the_exit_code(tmp_path: Path, capsys: Capture,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    folder = two_students(tmp_path)
    from grader.judge import grading

    real = grading.grade_submission

    def flaky(sandbox, submission, *args, **kwargs):  # type: ignore[no-untyped-def]
        if submission.name == "swapped_slopes.py":
            raise RuntimeError("a bug in the grader")
        return real(sandbox, submission, *args, **kwargs)

    monkeypatch.setattr(grading, "grade_submission", flaky)  # inherited by the forked workers
    out = tmp_path / "reports"
    assert main(["batch", str(folder), "--out", str(out), "--exercise", "node-mul", "-j", "1"]) == 3
    assert "grader error: swapped_slopes: RuntimeError: a bug in the grader" in capsys.readouterr().err
    done = students(out)
    assert done["swapped_slopes"]["outcome"] == "grader-error" and done["correct_lesson_style"]["outcome"] == "graded"
    lti = json.loads((out / "students" / "swapped_slopes" / "lti-score.json").read_text())
    assert lti["gradingProgress"] == "Failed"


@pytest.mark.slow
def test_shards_merge_into_one_gradebook(tmp_path: Path, capsys: Capture) -> None:
    folder = make_class(tmp_path / "class")
    parts = []
    for k in (1, 2):
        out = tmp_path / f"shard{k}"
        assert main(["batch", str(folder), "--out", str(out), "--exercise", "node-mul", "-j", "1",
                     "--time-limit", "1", "--shard", f"{k}/2"]) == 0
        parts.append(out)
    assert set(students(parts[0])).isdisjoint(students(parts[1]))
    merged = tmp_path / "merged"
    assert main(["merge", *map(str, parts), "--out", str(merged)]) == 0
    assert len(students(merged)) == 8
    with (merged / "gradebook.csv").open(newline="") as handle:
        assert len(list(csv.reader(handle))) == 2 + 8
    assert "merged 8 students from 2 shards" in capsys.readouterr().out


def test_gradescope_export_writes_the_autograder(tmp_path: Path) -> None:
    out = tmp_path / "gs"
    assert main(["export", "gradescope", "--exercise", "node-mul", "--out", str(out)]) == 0
    run = (out / "run_autograder").read_text()
    assert os.access(out / "run_autograder", os.X_OK) and os.access(out / "setup.sh", os.X_OK)
    assert "--exercise node-mul" in run and "--format gradescope" in run and "gradescope_failure" in run
    with zipfile.ZipFile(out / "autograder.zip") as zipped:
        names = set(zipped.namelist())
    assert {"setup.sh", "run_autograder", "src/grader/cli.py", "src/reference/scalar.py",
            "exercises/node-mul/exercise.yaml", "exercises/node-mul/solution.py"} <= names
    assert not any("__pycache__" in name for name in names)


@pytest.mark.slow
def test_an_assignment_gradebook_has_one_total_column(tmp_path: Path, catalog: Catalog) -> None:
    """A Canvas import of the gradebook makes one assignment, not one per exercise."""
    folder = tmp_path / "class"
    folder.mkdir()
    shutil.copy(ROOT / "submissions" / "notebooks" / "autograd_lesson.ipynb", folder / "ada.ipynb")
    roster = tmp_path / "roster.csv"
    roster.write_text("submission,id,name\nada.ipynb,101,Ada\n,102,Absent\n")
    out = tmp_path / "reports"
    assert main(["batch", str(folder), "--out", str(out), "--assignment", "autograd", "--roster", str(roster),
                 "-j", "1"]) == 0
    with (out / "gradebook.csv").open(newline="") as handle:
        header, points, ada, absent = list(csv.reader(handle))
    assert header[5:] == ["autograd"]
    assert float(points[5]) == sum(e.points for e in catalog.load_assignment("autograd")[1]) == 80
    report = json.loads((out / "students" / "101" / "report.json").read_text())
    assert float(ada[5]) == report["score"] > 0 and absent[5] == "0"
    out2 = tmp_path / "both"
    assert main(["batch", str(folder), "--out", str(out2), "--assignment", "autograd", "--roster", str(roster),
                 "-j", "1", "--gradebook-columns", "both"]) == 0
    with (out2 / "gradebook.csv").open(newline="") as handle:
        assert next(csv.reader(handle))[5:7] == ["autograd", "accumulation"]


def test_a_batch_report_is_the_report_grade_writes(tmp_path: Path) -> None:
    """One function builds every report: a batch keeps what `grade` keeps, integrity and isolation included."""
    folder = tmp_path / "class"
    folder.mkdir()
    hostile = ROOT / "submissions" / "hostile"
    for name in ("forged_protocol_lines", "imports_torch"):
        shutil.copy(hostile / f"{name}.py", folder / f"{name}.py")
    out = tmp_path / "out"
    secret = str(write_new_secret(tmp_path / "secret").path)  # and `grade FILE --secret-file` draws the batch's seed
    assert main(["batch", str(folder), "--out", str(out), "--exercise", "node-mul", "-j", "1",
                 "--secret-file", secret]) == 0
    for name in ("forged_protocol_lines", "imports_torch"):
        single = tmp_path / f"{name}.json"
        main([str(folder / f"{name}.py"), "--exercise", "node-mul", "--format", "json", "-o", str(single),
              "--secret-file", secret])
        graded = json.loads(single.read_text())
        batched = json.loads((out / "students" / name / "report.json").read_text())
        for report in (graded, batched):
            del report["seconds"], report["submission"]
        assert batched == graded
        assert batched["isolation"] is not None
    forged = json.loads((out / "students" / "forged_protocol_lines" / "report.json").read_text())
    assert any("reply channel" in text for text in forged["integrity"])
    assert any("imports torch" in note or "imported torch" in note
               for note in json.loads((out / "students" / "imports_torch" / "report.json").read_text())["notes"])


def test_worker_messages_are_typed_and_strict() -> None:
    from grader.course.pool import Tally
    from grader.course.wire import Done, Task

    done = Done(student="ada", outcome="graded", score=7.5, max_score=10.0, seconds=0.25)
    assert Done.from_line(done.to_line()) == done
    assert Task.from_line(Task(student="ada").to_line()) == Task(student="ada")
    with pytest.raises(ValueError, match="unknown outcome 'perfect'"):
        Done.from_line(done.to_line().replace(b'"graded"', b'"perfect"'))
    tally = Tally()
    for outcome in ("graded", "graded", "unreadable", "missing"):
        tally.add(Done(student="s", outcome=outcome, score=0.0, max_score=1.0, seconds=0.0))  # type: ignore[arg-type]
    tally.add(Done(student="bob", outcome="grader-error", score=0.0, max_score=0.0, seconds=0.0,
                   error="Traceback (most recent call last):\n  ...\nKeyError: 'x'\n"))
    assert (tally.graded, tally.unreadable, tally.missing, tally.grader_errors) == (2, 1, 1, ["bob: KeyError: 'x'"])
