"""The course server's defaults and course.toml's life, on real files: a
deadline without a late policy counts late work 0 and says so at upload; late credit is asked for explicitly;
partial days late follow the course's late_rounding; a mistake in course.toml names its file and line; and an edit
to course.toml applies without a restart (grader.service.live_course), or keeps the rules in force and says why."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from grader.core.errors import GraderError
from grader.service import live_course
from grader.service.config import DAY, Course, load_course
from grader.service.standing import Row, count, factor_of, late_policy

ROOT = Path(__file__).resolve().parent.parent
DEADLINE = 1767225600.0  # 2026-01-01T00:00:00Z


def _course(folder: Path, hw1: str, top: str = "") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "course.toml").write_text(f'exercises = "{ROOT / "exercises"}"\nlate_days = 2\n{top}\n'
                                        f'[assignments.hw1]\nexercises = ["node-mul"]\n'
                                        f'deadline = 2026-01-01T00:00:00Z\n{hw1}')
    return folder


def _graded(course: Course, at: float, score: float = 10.0, ident: int = 1) -> Row:
    """A graded hw1 submission received `at`, marked late as its receipt said (grader.service.uploads)."""
    late = course.days_late(course.assignments["hw1"], "s1", at)
    return Row(id=ident, assignment="hw1", filename="f.py", sha256="", received_at=at, days_late=late, seed_token="",
               outcome="graded", score=score, max_score=10.0, public_score=score, state="done")


def test_a_deadline_without_a_late_policy_counts_late_work_0(tmp_path: Path) -> None:
    """Hidden results come out at the deadline: a student who read them and resubmits years late gets 0, not 10."""
    course = load_course(_course(tmp_path, ""))
    rules = course.assignments["hw1"]
    assert rules.late == "none"
    years = DEADLINE + 3 * 365 * DAY
    counted = count(course, "s1", [_graded(course, years, 10.0, 2), _graded(course, DEADLINE - 60, 4.0, 1)])["hw1"]
    assert counted.score == 4.0  # the on-time 4/10 counts; the late 10/10 is worth 0
    alone = count(course, "s1", [_graded(course, years)])["hw1"]
    assert alone.score == 0.0 and "takes no late work" in alone.why
    # the student is told when the upload is taken, not at the deadline
    assert "counts 0" in late_policy(rules, course.days_late(rules, "s1", years), course.late_days)
    last = load_course(_course(tmp_path / "last", 'counts = "last"\n'))
    assert "replaces any earlier" in late_policy(last.assignments["hw1"], 1.0, 0)


def test_late_credit_is_asked_for_explicitly(tmp_path: Path) -> None:
    with pytest.raises(GraderError, match=r"course.toml, line 7: assignments.hw1.late = \"penalty\" needs "
                                          r"penalty_per_day"):
        load_course(_course(tmp_path / "a", 'late = "penalty"\n'))
    asked = load_course(_course(tmp_path / "b", 'late = "penalty"\npenalty_per_day = 0.1\n'))
    assert count(asked, "s1", [_graded(asked, DEADLINE + 60)])["hw1"].score == 9.0


def test_a_minute_late_is_a_day_late_unless_the_course_counts_hours(tmp_path: Path) -> None:
    policy = 'late = "penalty"\npenalty_per_day = 0.24\n'
    daily = load_course(_course(tmp_path / "day", policy))
    hourly = load_course(_course(tmp_path / "hour", policy, top='late_rounding = "hour"'))
    minute = DEADLINE + 60
    assert daily.late_rounding == "day" and daily.days_late(daily.assignments["hw1"], "s1", minute) == 1.0
    assert hourly.days_late(hourly.assignments["hw1"], "s1", minute) == 1 / 24
    assert count(daily, "s1", [_graded(daily, minute)])["hw1"].score == 7.6
    counted = count(hourly, "s1", [_graded(hourly, minute)])["hw1"]
    assert counted.score == 9.9 and counted.why == "1 hour late: 1% off"
    # late days are spent whole, however days late are counted
    rules = load_course(_course(tmp_path / "days", 'late = "late-days"\n', top='late_rounding = "hour"'))
    assert factor_of(rules.assignments["hw1"], 1 / 24, 2)[:2] == (1.0, 1)
    with pytest.raises(GraderError, match="late_rounding must be one of day, hour"):
        load_course(_course(tmp_path / "bad", "", top='late_rounding = "minute"'))


def test_a_deadline_moved_later_applies_to_what_was_submitted_and_one_moved_earlier_from_then_on(
        tmp_path: Path) -> None:
    policy = 'late = "penalty"\npenalty_per_day = 0.5\n'
    first = load_course(_course(tmp_path, policy))
    rows = [_graded(first, DEADLINE + 60, ident=2), _graded(first, DEADLINE - 60, 6.0, ident=1)]
    assert count(first, "s1", rows)["hw1"].score == 6.0  # 10 a day late (5) is less than 6 on time
    toml = tmp_path / "course.toml"
    toml.write_text(toml.read_text().replace("2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z"))
    assert count(load_course(tmp_path), "s1", rows)["hw1"].score == 10.0  # the extension reaches what was handed in
    toml.write_text(toml.read_text().replace("2026-01-02T00:00:00Z", "2025-12-31T00:00:00Z"))
    assert count(load_course(tmp_path), "s1", rows)["hw1"].score == 6.0  # a receipt's "on time" stays on time


def test_a_mistake_in_course_toml_names_its_file_and_line(tmp_path: Path) -> None:
    for body, line, said in (("per_day = 1\npenalty_perday = 0.1\n", 8, "penalty_perday is not a setting"),
                             ("counts = 'best'\nper_day = -1\n", 8, "per_day must be a whole number"),
                             ('late = "sometimes"\n', 7, "late must be"),
                             ('counts = "first"\n', 7, "counts must be")):
        with pytest.raises(GraderError, match=f"course.toml, line {line}: .*{said}"):
            load_course(_course(tmp_path / str(line) / said[:4], body))
    (tmp_path / "syntax").mkdir()
    (tmp_path / "syntax" / "course.toml").write_text('name = "x"\n[assignments.hw1\n')
    with pytest.raises(GraderError, match="line 2"):
        load_course(tmp_path / "syntax")


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    stamp = time.time() + 5  # a new mtime even on a file system that keeps whole seconds
    os.utime(path, (stamp, stamp))


def test_an_edit_to_course_toml_applies_without_a_restart_or_says_why_not(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(live_course, "LOOK_EVERY", 0.0)
    folder = _course(tmp_path, 'late = "none"\n')
    toml = folder / "course.toml"
    said: list[str] = []
    course = live_course.LiveCourse(load_course(folder), said.append)
    assert course.current().assignments["hw1"].deadline == DEADLINE
    _edit(toml, "2026-01-01T00:00:00Z", "2026-01-03T00:00:00Z")  # an extension for the class
    assert course.current().assignments["hw1"].deadline == DEADLINE + 2 * DAY and course.problem is None
    _edit(toml, "deadline = 2026-01-03T00:00:00Z", "deadline = 5")  # a broken edit: the rules in force stay
    assert course.current().assignments["hw1"].deadline == DEADLINE + 2 * DAY
    assert course.problem is not None and "course.toml, line 6: assignments.hw1.deadline" in course.problem
    assert said[-1] == course.problem and "keeps the rest of the configuration it had" in said[-1]
    _edit(toml, "deadline = 5", "deadline = 2026-01-05T00:00:00Z")
    _edit(toml, "late_days = 2", 'late_days = 2\nisolation = "none"')
    assert course.current().assignments["hw1"].deadline == DEADLINE + 2 * DAY  # nothing of it applies...
    assert "isolation changed, which needs a restart" in str(course.problem)  # ...and the server says why
    _edit(toml, 'isolation = "none"', "")
    assert course.current().assignments["hw1"].deadline == DEADLINE + 4 * DAY and course.problem is None
    _edit(toml, 'exercises = ["node-mul"]', 'exercises = ["node-add"]')  # the workers warmed up for node-mul
    assert course.current().assignments["hw1"].exercise_ids == ("node-mul",)
    assert "the assignments or their exercises" in str(course.problem)
