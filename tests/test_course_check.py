"""A course that cannot work is refused before it serves: `grade serve` and `grade course check` refuse an
assignment whose exercises need the same name (one file answers an assignment, and cannot define two `Node`s), and
a name that means two assignments, each with the rule and the fix; the pack's README names the course's
assignments as `grade submit` takes them. And the rules course.toml's dates follow: an extension is never earlier
than the class's deadline, and an assignment closes at the deadline plus the days late work can still count."""

from __future__ import annotations

from pathlib import Path

import pytest
from service_helpers import ROOT, grade

from grader.core.errors import GraderError
from grader.service.config import DAY, load_course

HEAD = f'name = "Check"\nexercises = "{ROOT / "exercises"}"\nlate_days = 2\n'


def _folder(folder: Path, body: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "course.toml").write_text(HEAD + body)
    return folder


def test_an_assignment_no_file_can_answer_is_refused_by_serve_and_check(tmp_path: Path) -> None:
    course = _folder(tmp_path / "clash", '[assignments.hw1]\nexercises = ["node-mul", "node-backward"]\n')
    for command in (("serve", "--port", "0", "--workers", "0"), ("course", "check")):
        done = grade(*command, "--course", str(course), timeout=120)
        said = done.stderr
        assert done.returncode == 2 and "course.toml, line 5: assignments.hw1.exercises" in said, (command, said)
        assert "node-mul and node-backward both need `Node`" in said and "every upload would be refused" in said
        assert "[assignments.node-mul] exercises = [\"node-mul\"]" in said  # the fix
        assert "Uvicorn running" not in done.stdout


def test_a_name_means_one_assignment(tmp_path: Path) -> None:
    # the catalog's assignment "autograd" is a notebook of four exercises: a course assignment of that name that
    # grades something else would take that notebook's uploads
    with pytest.raises(GraderError, match=r"assignments.autograd grades node-mul, but the catalog's assignment "
                                          r"autograd .* is first-gradient"):
        load_course(_folder(tmp_path / "a", '[assignments.autograd]\nexercises = ["node-mul"]\n'))
    with pytest.raises(GraderError, match=r"already means assignments\.lesson"):
        load_course(_folder(tmp_path / "b", '[assignments.lesson]\nassignment = "autograd"\n'
                                            '[assignments.again]\nassignment = "autograd"\n'))
    taken = load_course(_folder(tmp_path / "c", '[assignments.autograd]\nassignment = "autograd"\n'))
    assert taken.assignments["autograd"].catalog_assignment == "autograd"


def test_the_check_says_how_students_submit_and_the_pack_names_the_courses_assignments(tmp_path: Path) -> None:
    course = _folder(tmp_path / "course", '[assignments.hw1]\nexercises = ["node-mul"]\n'
                                          'deadline = 2026-01-01T00:00:00Z\nlate = "late-days"\n'
                                          '[assignments.hw2]\nexercises = ["node-mul"]\n')
    done = grade("course", "check", "--course", str(course))
    assert done.returncode == 0, done.stderr
    assert "hw1: node-mul, 10 points; students submit with: grade submit node-mul.py --assignment hw1" in done.stdout
    assert "deadline 2026-01-01 00:00 UTC (passed: hidden results are out), closes 2026-01-03 00:00 UTC" in \
        done.stdout
    assert "note: node-mul is graded by hw1, hw2" in done.stdout
    pack = tmp_path / "pack"
    done = grade("release", "node-mul", "--out", str(pack), "--server", "https://grader.example.edu",
                 "--course", str(course), timeout=300)
    assert done.returncode == 0, done.stderr
    readme = (pack / "README.md").read_text()
    assert "grade submit node-mul.py --assignment hw1" in readme and "--assignment hw2" in readme
    assert "grade submit node-mul.py " not in readme.replace("node-mul.py --assignment", "")


def test_an_extension_is_never_earlier_and_an_assignment_closes_when_late_work_stops_counting(
        tmp_path: Path) -> None:
    course = load_course(_folder(tmp_path / "dates", '''[assignments.none]
exercises = ["node-mul"]
deadline = 2026-01-10T00:00:00Z
[assignments.penalty]
exercises = ["node-mul"]
deadline = 2026-01-10T00:00:00Z
late = "penalty"
penalty_per_day = 0.3
[assignments.days]
exercises = ["node-mul"]
deadline = 2026-01-10T00:00:00Z
late = "late-days"
[assignments.set]
exercises = ["node-mul"]
deadline = 2026-01-10T00:00:00Z
closes = 2026-01-20T00:00:00Z
[extensions.none]
early = 2026-01-05T00:00:00Z
late = 2026-01-12T00:00:00Z
'''))
    rules = course.assignments
    deadline = rules["none"].deadline
    assert deadline is not None
    assert rules["none"].deadline_for("early") == deadline and not rules["none"].extended("early")
    assert rules["none"].deadline_for("late") == deadline + 2 * DAY and rules["none"].extended("late")
    assert course.closes_for(rules["none"], "s1") == deadline  # it takes no late work
    assert course.closes_for(rules["none"], "late") == deadline + 2 * DAY
    assert course.closes_for(rules["penalty"], "s1") == deadline + 3 * DAY  # 3 days: 10% left; the 4th: 0
    assert course.closes_for(rules["days"], "s1") == deadline + 2 * DAY  # the course's 2 late days
    assert course.closes_for(rules["set"], "s1") == deadline + 10 * DAY
    with pytest.raises(GraderError, match="closes is before its deadline"):
        load_course(_folder(tmp_path / "bad", '[assignments.hw1]\nexercises = ["node-mul"]\n'
                                              'deadline = 2026-01-10T00:00:00Z\ncloses = 2026-01-09T00:00:00Z\n'))
