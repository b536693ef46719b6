"""Where late days go (grader.service.policy.late_days, through grader.service.standing.count): the plan with the best
course total the budget allows, never below greedy's (deadline order, the rule before), checked against every plan
on random courses; and the case a term showed, where greedy counted 10 of the 18 the rules allowed."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import TYPE_CHECKING

from hypothesis import given, settings
from hypothesis import strategies as st

from grader.service.config import DAY, load_course
from grader.service.standing import Row, count

if TYPE_CHECKING:
    from grader.service.policy.late_days import Choice

ROOT = Path(__file__).resolve().parent.parent
HW1, HW2 = 1767225600.0, 1769904000.0  # the course's deadlines (2026-01-01, 2026-02-01)

#: each group a free choice (nothing counted) and up to five of (points, late days)
groups = st.lists(st.lists(st.tuples(st.integers(0, 20), st.integers(0, 4)), max_size=5), min_size=1, max_size=5)


def _total(groups: list[list[Choice]], plan: list[int]) -> tuple[float, int]:
    taken = [group[index] for group, index in zip(groups, plan, strict=True)]
    return round(sum(c.points for c in taken), 6), sum(c.days for c in taken)


def _greedy(groups: list[list[Choice]], budget: int) -> list[int]:
    """The rule before: each group in order takes its best choice with the days still left."""
    plan = []
    for group in groups:
        fitting = [i for i, c in enumerate(group) if c.days <= budget]
        index = max(fitting, key=lambda i: (group[i].points, -group[i].days, -i))
        plan.append(index)
        budget -= group[index].days
    return plan


@settings(max_examples=300, deadline=None)
@given(groups, st.integers(0, 6))
def test_the_plan_is_the_best_of_every_plan_and_never_below_greedy(drawn: list[list[tuple[int, int]]],
                                                                   budget: int) -> None:
    from grader.service.policy.late_days import Choice, best

    found = [[Choice(0.0, 0), *(Choice(float(points), days) for points, days in group)] for group in drawn]
    plan = best(found, budget)
    points, days = _total(found, plan)
    assert days <= budget
    every = [_total(found, list(p)) for p in itertools.product(*(range(len(g)) for g in found))]
    most = max(points for points, days in every if days <= budget)
    assert points == most
    # among the plans with the most points, it spends the fewest days
    assert days == min(d for p, d in every if p == most and d <= budget)
    assert points >= _total(found, _greedy(found, budget))[0]


def test_a_group_without_a_free_choice_is_refused() -> None:
    from grader.service.policy.late_days import Choice, best

    try:
        best([[Choice(5.0, 1)]], 3)
    except ValueError as exc:
        assert "no choice that spends no late day" in str(exc)
    else:
        raise AssertionError("a plan with no free choice was made")


def _course(folder: Path, counts: str = "best") -> object:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "course.toml").write_text(f'''exercises = "{ROOT / 'exercises'}"
late_days = 1
[assignments.hw1]
exercises = ["node-mul"]
deadline = 2026-01-01T00:00:00Z
late = "late-days"
counts = "{counts}"
[assignments.hw2]
exercises = ["node-mul"]
deadline = 2026-02-01T00:00:00Z
late = "late-days"
counts = "{counts}"
''')
    return load_course(folder)


def _row(ident: int, assignment: str, score: float, received: float) -> Row:
    deadline = HW1 if assignment == "hw1" else HW2
    late = 0.0 if received <= deadline else float(int((received - deadline) // DAY) + 1)
    return Row(id=ident, assignment=assignment, filename="f.py", sha256="", received_at=received, days_late=late,
               seed_token="", outcome="graded", score=score, max_score=10.0, public_score=score, state="done")


def test_the_one_late_day_goes_where_it_counts_most(tmp_path: Path) -> None:
    """hw1: 8/10 on time and 10/10 a day late; hw2: 10/10 a day late; one late day. Greedy spent it on hw1 (10 + 0);
    the rules allow 8 + 10."""
    course = _course(tmp_path)
    rows = [_row(3, "hw2", 10.0, HW2 + 3600), _row(2, "hw1", 10.0, HW1 + 3600), _row(1, "hw1", 8.0, HW1 - 60)]
    counted = count(course, "s1", rows)  # type: ignore[arg-type]
    assert counted["hw1"].score == 8.0 and counted["hw1"].row is not None and counted["hw1"].row.id == 1
    assert counted["hw2"].score == 10.0 and counted["hw2"].late_days_used == 1
    assert sum(c.score or 0.0 for c in counted.values()) == 18.0
    # before hw2's late file came, the day was best spent on hw1's late 10/10
    early = count(course, "s1", rows[1:])  # type: ignore[arg-type]
    assert early["hw1"].score == 10.0 and early["hw1"].late_days_used == 1


def test_under_last_a_late_file_that_cannot_have_the_day_counts_0_and_says_why(tmp_path: Path) -> None:
    course = _course(tmp_path / "last", counts="last")
    rows = [_row(3, "hw2", 10.0, HW2 + 3600), _row(2, "hw1", 4.0, HW1 + 3600)]
    counted = count(course, "s1", rows)  # type: ignore[arg-type]
    assert counted["hw2"].score == 10.0 and counted["hw1"].score == 0.0
    assert "with 0 late days left: counts 0" in counted["hw1"].why
