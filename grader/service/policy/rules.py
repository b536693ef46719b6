"""One assignment's rules, as course.toml states them and as they are checked: what it
grades (one file answers all of its exercises, so they must not need the same name), when
it opens, is due and closes, its late policy, which submission counts, each student's
extension, and an instructor's corrections (set from the pages and kept in the store:
grader.service.policy.corrections). grader.service.config reads the course around them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from typing import Any, Literal, get_args

from grader.core.errors import GraderError
from grader.core.exercise import Exercise
from grader.judge.catalog import Catalog, shared_name
from grader.service.toml_file import TomlFile

DAY = 86400.0
Late = Literal["penalty", "late-days", "none"]
Counts = Literal["best", "last"]
#: an instructor's correction of what counts (grader.service.corrections): a
#: score set by hand, the submission chosen to count, or the assignment excused
Fix = Literal["score", "submission", "excused"]
#: a student's submissions of one assignment per day, unless the assignment's
#: per_day says otherwise: with a worker or two, one token uploading at the
#: per-minute limit all day would queue more than they grade
DEFAULT_PER_DAY = 20
ASSIGNMENT_KEYS = frozenset(
    {
        "exercises",
        "assignment",
        "opens",
        "deadline",
        "late",
        "penalty_per_day",
        "max_late_days",
        "per_day",
        "counts",
        "closes",
    }
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Correction:
    """What an instructor set from the pages for one
    student's assignment, over what the rules would count."""

    kind: Fix
    #: kind "score": the points that count (out of the assignment's points)
    score: float | None = None
    #: kind "submission": the submission that counts (the late policy still applies to it)
    submission: int | None = None
    #: the instructor's words, shown to the student
    reason: str = ""
    set_by: str = ""
    set_at: float = 0.0


@dataclass(frozen=True, slots=True, kw_only=True)
class Rules:
    """One assignment's rules: what it grades, when, and what counts."""

    id: str
    exercise_ids: tuple[str, ...]
    #: the catalog's assignment it stands for, if it names one (the notebook's metadata may name it)
    catalog_assignment: str | None
    opens: float | None
    deadline: float | None
    #: without a late policy, late work is stored and marked,
    #: and counts 0: late credit is asked for explicitly
    late: Late = "none"
    penalty_per_day: float = 0.0
    #: days after the deadline past which a late submission
    #: counts 0 (stored and marked all the same)
    max_late_days: float | None = None
    #: submissions per student per day (0: no limit)
    per_day: int = DEFAULT_PER_DAY
    counts: Counts = "best"
    #: student id -> their own deadline (epoch seconds)
    extensions: dict[str, float] = field(default_factory=dict)
    #: uploads are refused after it (course.toml's `closes`);
    #: None: the deadline plus the days late work can count
    closes: float | None = None
    #: the points its exercises hold, every check's (what a score set by hand is out of)
    points: float = 0.0
    #: student id -> the instructor's correction of what
    #: counts for them (set from the pages, kept in the store)
    corrections: dict[str, Correction] = field(default_factory=dict)

    def deadline_for(self, student: str) -> float | None:
        """The student's own deadline: their extension where it is later than the
        class's, else the class's. An extension never makes a deadline earlier (the
        class's moved past it), and without a class deadline there is none for anyone."""
        own = self.extensions.get(student)
        if own is None or self.deadline is None:
            return self.deadline
        return max(own, self.deadline)

    def extended(self, student: str) -> bool:
        """Whether the student's own deadline is later than the class's."""
        own = self.extensions.get(student)
        return own is not None and self.deadline is not None and own > self.deadline


def read_rules(
    toml: TomlFile, name: str, spec: Any, catalog: Catalog, extensions: Any, zone: tzinfo
) -> Rules:
    """The rules of [assignments.NAME] (and its
    [extensions.NAME]), checked: a mistake names its line."""
    at = f"assignments.{name}"
    if not isinstance(spec, dict):
        raise GraderError(f"{toml.path}: [{at}] must be a table.")
    toml.known(spec, ASSIGNMENT_KEYS, at)
    exercises = _exercises_of(toml, at, spec, catalog)
    _answerable(toml, at, exercises)
    late, counts, penalty, max_days = _late_policy(toml, at, spec)
    deadline = date_time(toml, f"{at}.deadline", spec.get("deadline"), zone)
    granted = _extensions(toml, name, extensions, deadline, zone)
    closes = date_time(toml, f"{at}.closes", spec.get("closes"), zone)
    if closes is not None and deadline is not None and closes < deadline:
        raise GraderError(
            f"{toml.at(f'{at}.closes')}: {at}.closes is before its deadline: uploads would be "
            "refused while they are still on time. Set it after the deadline, or leave it out (the "
            "deadline plus the days late work can count)."
        )
    catalog_assignment = spec.get("assignment")
    return Rules(
        id=name,
        exercise_ids=tuple(e.id for e in exercises),
        catalog_assignment=str(catalog_assignment) if catalog_assignment else None,
        opens=date_time(toml, f"{at}.opens", spec.get("opens"), zone),
        deadline=deadline,
        late=late,
        penalty_per_day=float(penalty or 0.0),
        max_late_days=float(max_days) if max_days is not None else None,
        per_day=toml.number(spec, "per_day", DEFAULT_PER_DAY, at),
        counts=counts,
        extensions=granted,
        closes=closes,
        points=round(sum(e.points for e in exercises), 6),
    )


def _exercises_of(
    toml: TomlFile, at: str, spec: dict[str, Any], catalog: Catalog
) -> list[Exercise]:
    """The exercises an assignment grades: its list, or the catalog's assignment it names."""
    catalog_assignment = spec.get("assignment")
    try:
        if catalog_assignment is not None:
            return catalog.load_assignment(str(catalog_assignment))[1]
        listed = spec.get("exercises")
        if (
            not isinstance(listed, list)
            or not listed
            or not all(isinstance(i, str) for i in listed)
        ):
            raise GraderError(f"{at} needs exercises = [\"ID\", ...] or assignment = \"ID\".")
        return _exercises(catalog, tuple(listed))
    except GraderError as exc:
        raise GraderError(f"{toml.path}: {at}: {exc}") from None


def _late_policy(
    toml: TomlFile, at: str, spec: dict[str, Any]
) -> tuple[Late, Counts, float | None, float | None]:
    """The assignment's late policy and what counts: late, counts, penalty_per_day and
    max_late_days, checked."""
    late = spec.get("late", "none")
    counts = spec.get("counts", "best")
    if late not in get_args(Late):
        raise GraderError(
            f"{toml.at(f'{at}.late')}: {at}.late must be penalty, late-days or none, not {late!r}."
        )
    if counts not in get_args(Counts):
        raise GraderError(
            f"{toml.at(f'{at}.counts')}: {at}.counts must be best or last, not {counts!r}."
        )
    penalty = spec.get("penalty_per_day")
    # 0% a day, for ever, would give late work full marks by default
    if late == "penalty" and penalty is None:
        raise GraderError(
            f"{toml.at(f'{at}.late')}: {at}.late = \"penalty\" needs penalty_per_day, the fraction "
            "of the points taken off per day late (0 gives late work full marks however late)."
        )
    if not isinstance(penalty, (int, float, type(None))) or not 0 <= (penalty or 0.0) <= 1:
        raise GraderError(
            f"{toml.at(f'{at}.penalty_per_day')}: {at}.penalty_per_day is a fraction of the points "
            "from 0 to 1."
        )
    max_days = spec.get("max_late_days")
    if max_days is not None and (not isinstance(max_days, (int, float)) or max_days < 0):
        raise GraderError(
            f"{toml.at(f'{at}.max_late_days')}: {at}.max_late_days must be a number of days."
        )
    return late, counts, penalty, max_days


def _extensions(
    toml: TomlFile, name: str, extensions: Any, deadline: float | None, zone: tzinfo
) -> dict[str, float]:
    """[extensions.NAME]: each student's own deadline, a date or days after the class's."""
    if not isinstance(extensions, dict):
        raise GraderError(
            f"{toml.at(f'extensions.{name}')}: [extensions.{name}] must map student ids to a "
            "deadline or days."
        )
    granted: dict[str, float] = {}
    for student, value in extensions.items():
        key = f"extensions.{name}.{student}"
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if deadline is None:
                raise GraderError(f"{toml.at(key)}: {key}: days of extension need a deadline.")
            granted[str(student)] = deadline + float(value) * DAY
            continue
        moment = date_time(toml, key, value, zone)
        if moment is None:
            raise GraderError(f"{toml.at(key)}: {key} needs a date or a number of days.")
        granted[str(student)] = moment
    return granted


def one_namespace(toml: TomlFile, assignments: dict[str, Rules], catalog: Catalog) -> None:
    """What a student names with `--assignment` (or a notebook's metadata)
    is course.toml's assignment id, or the catalog's assignment one of them
    stands for (`assignment = "ID"`): each name must mean one assignment."""
    owner: dict[str, str] = {}
    for rules in assignments.values():
        if rules.catalog_assignment is not None and rules.catalog_assignment != rules.id:
            taken = owner.get(rules.catalog_assignment) or (
                rules.catalog_assignment if rules.catalog_assignment in assignments else None
            )
            if taken is not None:
                raise GraderError(
                    f"{toml.at(f'assignments.{rules.id}.assignment')}: assignments.{rules.id} "
                    f"stands for the catalog's assignment {rules.catalog_assignment}, a name that "
                    f"already means assignments.{taken}: `grade submit --assignment "
                    f"{rules.catalog_assignment}` could mean either. Give each its own name."
                )
            owner[rules.catalog_assignment] = rules.id
    catalog_ids = set(catalog.assignment_ids())
    for rules in assignments.values():
        if rules.catalog_assignment is None and rules.id in catalog_ids:
            graded = tuple(e.id for e in catalog.load_assignment(rules.id)[1])
            if graded != rules.exercise_ids:
                raise GraderError(
                    f"{toml.at(f'assignments.{rules.id}.exercises')}: assignments.{rules.id} "
                    f"grades {', '.join(rules.exercise_ids)}, but the catalog's assignment "
                    f"{rules.id} (exercises/assignments/{rules.id}.yaml) is {', '.join(graded)}: a "
                    "notebook made for the one would be graded as the other. Rename one, or write "
                    f"assignment = \"{rules.id}\" to take the catalog's."
                )


def _answerable(toml: TomlFile, at: str, exercises: list[Exercise]) -> None:
    """An assignment is answered by one file: its exercises must not
    need the same name (two `Node`s), or every upload would be refused."""
    shared = shared_name(exercises)
    if shared is None:
        return
    name, first, second = shared
    raise GraderError(
        f"{toml.at(f'{at}.exercises')}: {at}.exercises: {first} and {second} both need `{name}`, "
        "and one uploaded file answers all of an assignment's exercises, so no file can answer "
        f"{at.split('.', 1)[1]}: every upload would be refused (an assignment's exercises must not "
        f"need the same name). Make each an assignment of its own ([assignments.{first}] exercises "
        f"= [\"{first}\"], and the same for {second}), or keep exercises that define different "
        "names together."
    )


def _exercises(catalog: Catalog, ids: tuple[str, ...]) -> list[Exercise]:
    return [catalog.load(i) for i in ids]


def date_time(toml: TomlFile, key: str, value: Any, zone: tzinfo) -> float | None:
    """A TOML date-time (or an ISO 8601 string) as epoch
    seconds; a time without an offset is the course's zone."""
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            raise GraderError(
                f"{toml.at(key)}: {key}: {value!r} is not a date and time (2026-12-01T23:59:00Z)."
            ) from None
    if not isinstance(value, datetime):
        raise GraderError(
            f"{toml.at(key)}: {key} must be a date and time, like 2026-12-01T23:59:00Z."
        )
    if value.tzinfo is None:
        value = value.replace(tzinfo=zone)
    return float(value.timestamp())
