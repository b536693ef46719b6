"""Where a student's late days go: one choice per
assignment, for the best course total the budget allows.

Each assignment offers choices (which submission counts, and whether late days are
spent on it): each is worth some points and spends some whole late days, 0 for work
on time or under a penalty. One choice is taken per assignment so that the points
add up to the most their late days allow: a multiple-choice knapsack, solved exactly
by dynamic programming over the days spent. It is small: the budget is a few days,
and of an assignment's choices only the best for each number of days can matter.

The rule before this one spent the days greedily, in deadline order: on the first assignment
that gained anything from them, however little. hw1's late 10/10 took the one late day over
an on-time 8/10, and hw2's late 10/10 then counted 0: 10 in all, where 18 was allowed. The
optimum is never below greedy's total (greedy's choices are one of the plans it weighs);
tests/test_late_days.py checks it against greedy and against every plan, on random courses.

Among plans with the same points, the one that spends fewer late days; among those, each
assignment's choices in the order given (its preferred first), earlier assignments first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

#: points are compared to a millionth, as reports round them: float sums must not break a tie
_PLACES = 6


@dataclass(frozen=True, slots=True)
class Choice:
    """What one choice counts for an assignment, and the late days it spends."""

    points: float
    days: int


def best(groups: Sequence[Sequence[Choice]], budget: int) -> list[int]:
    """The index of the choice taken in each group: the
    most points in all with at most `budget` late days.

    Every group needs a choice that spends no late day (nothing counted, at worst)."""
    # plans[d]: the best plan found so far that spends
    # exactly d days, as (points, the choice of each group)
    plans: dict[int, tuple[float, tuple[int, ...]]] = {0: (0.0, ())}
    for number, group in enumerate(groups):
        kept = _useful(group, budget)
        if not any(group[i].days == 0 for i in kept):
            raise ValueError(f"group {number} has no choice that spends no late day")
        grown: dict[int, tuple[float, tuple[int, ...]]] = {}
        for spent in sorted(plans):
            points, taken = plans[spent]
            for index in kept:
                choice = group[index]
                days = spent + choice.days
                if days > budget:
                    continue
                total, plan = round(points + choice.points, _PLACES), (*taken, index)
                held = grown.get(days)
                if held is None or total > held[0] or (total == held[0] and plan < held[1]):
                    grown[days] = (total, plan)
        plans = grown
    spent = max(plans, key=lambda d: (plans[d][0], -d))
    return list(plans[spent][1])


def _useful(group: Sequence[Choice], budget: int) -> list[int]:
    """The choices worth weighing, in the order given: for each number of days within the budget,
    the first of the most points, and only where it beats every choice that spends fewer days."""
    first: dict[int, int] = {}
    for index, choice in enumerate(group):
        if choice.days > budget or choice.days < 0:
            continue
        held = first.get(choice.days)
        if held is None or round(choice.points, _PLACES) > round(group[held].points, _PLACES):
            first[choice.days] = index
    kept, most = [], float("-inf")
    for days in sorted(first):
        points = round(group[first[days]].points, _PLACES)
        if points > most:
            kept.append(first[days])
            most = points
    return sorted(kept)
