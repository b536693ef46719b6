"""What a receipt says an upload does to what counts (grader.service.policy.effects), under each rule: before the
deadline only the rule; after it, what counts now and what the upload does to it ("This replaces your counted
10/10 (on time) with a late upload that counts 0"); an instructor's correction stands whatever is uploaded; and an
upload after the close is refused with when and why."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from grader.service.config import DAY, Correction, Course, load_course
from grader.service.policy.effects import closed, effect
from grader.service.standing import Row

ROOT = Path(__file__).resolve().parent.parent
DEADLINE = 1767225600.0  # 2026-01-01T00:00:00Z


def _course(folder: Path, late: str, counts: str) -> Course:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "course.toml").write_text(f'''exercises = "{ROOT / 'exercises'}"
late_days = 1
[assignments.hw1]
exercises = ["node-mul"]
deadline = 2026-01-01T00:00:00Z
counts = "{counts}"
{late}
''')
    return load_course(folder)


ON_TIME = Row(id=1, assignment="hw1", filename="f.py", sha256="", received_at=DEADLINE - 60, days_late=0.0,
              seed_token="", outcome="graded", score=10.0, max_score=10.0, public_score=10.0, state="done")


def test_before_the_deadline_a_receipt_says_only_the_rule(tmp_path: Path) -> None:
    last = _course(tmp_path / "last", "", "last")
    said = effect(last, "s1", last.assignments["hw1"], [ON_TIME], 0.0, released=False)
    assert "this one replaces any earlier" in said and "10/10" not in said
    best = _course(tmp_path / "best", "", "best")
    assert "best submission counts" in effect(best, "s1", best.assignments["hw1"], [ON_TIME], 0.0, released=False)


def test_after_it_a_receipt_names_what_counts_and_what_the_upload_does_to_it(tmp_path: Path) -> None:
    cases = (('late = "none"\ncloses = 2026-01-09T00:00:00Z', "last",
              "This replaces your counted 10/10 (on time) with a late upload that counts 0 (this assignment takes "
              "no late work)."),
             ('late = "penalty"\npenalty_per_day = 0.25', "last",
              "This replaces your counted 10/10 (on time) with a late upload that counts 75% of what it earns "
              "(1 day late: 25% off)."),
             ('late = "penalty"\npenalty_per_day = 0.25', "best",
              "Your counted 10/10 (on time) stays unless this one counts more: a late upload that counts 75% of "
              "what it earns (1 day late: 25% off)."),
             ('late = "late-days"', "best", "a late upload that counts in full with 1 of your late days (1 left for "
                                            "it; they go where they count most)."))
    for number, (late, counts, said) in enumerate(cases):
        course = _course(tmp_path / str(number), late, counts)
        assert said in effect(course, "s1", course.assignments["hw1"], [ON_TIME], 1.0, released=True), said
    days = _course(tmp_path / "days", 'late = "late-days"', "last")
    assert "counts 0: it needs 2 late days, and 1 is left for it" in effect(
        days, "s1", days.assignments["hw1"], [], 2.0, released=True)


def test_a_correction_stands_whatever_is_uploaded_and_the_close_says_when(tmp_path: Path) -> None:
    course = _course(tmp_path, 'late = "penalty"\npenalty_per_day = 0.25\nmax_late_days = 2', "last")
    rules = course.assignments["hw1"]
    fixed = dataclasses.replace(rules, corrections={"s1": Correction(kind="score", score=7.0, reason="by hand")})
    said = effect(dataclasses.replace(course, assignments={"hw1": fixed}), "s1", fixed, [ON_TIME], 1.0,
                  released=True)
    assert said == "Your instructor set what counts for hw1 (set by your instructor: by hand): this upload does " \
                   "not change it."
    closes = course.closes_for(rules, "s1")
    assert closes == DEADLINE + 2 * DAY
    refused = closed(course, rules, "s1", closes)
    assert refused.startswith("hw1 closed at 2026-01-03 00:00 UTC (its deadline was 2026-01-01 00:00 UTC")
    assert "NOT stored" in refused and "What you submitted before stands" in refused
