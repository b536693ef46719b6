"""A course server's configuration: `course.toml` in the course folder, checked whole, frozen (the server reads it
again when it changes: grader.service.live).

    name = "Autograd 101"
    exercises = "exercises"            # the catalog, relative to this file (default: the folder's exercises/,
                                       # else the catalog grade finds: $AUTOGRADER_EXERCISES, or the grader's own)
    roster = "roster.csv"              # what `grade tokens` reads by default
    timezone = "Europe/Paris"          # when a day starts, for daily limits and days late (default UTC)
    late_days = 3                      # each student's budget, for assignments with late = "late-days"
    late_rounding = "day"              # a minute late is a day late (default); "hour": a minute late is an hour
    max_upload_kib = 256
    uploads_per_minute = 6             # per token; more gets 429 with Retry-After
    queued_per_student = 5             # uploads waiting to be graded per student; more gets 429 (0: no limit)
    isolation = "landlock"             # the weakest confinement a submission may be graded under
    secret_file = "course-secret"      # the seed secret (created, mode 600, on first start)
    # seed = 4217                      # one seed for every submission, as grade batch --seed (default: each its own)
    # database = "postgresql://grader@db.example.edu/autograd"   # default: SQLite, server/course.db

    [assignments.hw1]
    exercises = ["node-mul"]           # or: assignment = "autograd" (one of the catalog's)
    opens = 2026-11-01T00:00:00Z
    deadline = 2026-12-01T23:59:00Z
    late = "penalty"                   # penalty (penalty_per_day, max_late_days), late-days, or none (default)
    penalty_per_day = 0.1
    max_late_days = 3
    per_day = 5                        # submissions per student per day (default 20; 0: no limit)
    counts = "best"                    # or "last"
    # closes = 2026-12-04T23:59:00Z    # uploads refused after it (default: the deadline + the late days the
                                       # policy lets count: max_late_days, the penalty's, late_days, or none)

    [extensions.hw1]
    s1234 = 2026-12-03T23:59:00Z       # a new deadline for one student, or a number of days: s1235 = 2

    [lti]                              # launches from the LMS: grader.service.lti.lti_config
"""

from __future__ import annotations

import math
import os
import tomllib
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, tzinfo
from pathlib import Path
from typing import Any, Literal, get_args
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from grader.core.errors import GraderError
from grader.core.exercise import Exercise
from grader.course.secret import read_secret, write_new_secret
from grader.judge.catalog import ENV_VAR, Catalog, shared_name
from grader.run.confine.isolate import LEVELS, Level
from grader.service.lti.lti_config import LtiSettings, read_lti
from grader.service.toml_where import Where

CONFIG = "course.toml"
#: the server's own files in the course folder: the SQLite store, the workers' scratch, the gradebook's folder
DATA = "server"
Late = Literal["penalty", "late-days", "none"]
Counts = Literal["best", "last"]
#: an instructor's correction of what counts (grader.service.corrections): a score set by hand, the submission
#: chosen to count, or the assignment excused
Fix = Literal["score", "submission", "excused"]
Rounding = Literal["day", "hour"]
DAY = 86400.0
#: what days late are counted in, by course.toml's late_rounding: part of one counts whole
ROUNDING = {"day": DAY, "hour": 3600.0}
#: the keys course.toml may hold, at its top and in an assignment: any other is a typo, named with its line
#: (`penalty_perday = 0.1` ignored would leave late work at the default, 0)
COURSE_KEYS = frozenset({"name", "exercises", "roster", "timezone", "late_days", "late_rounding", "max_upload_kib",
                         "uploads_per_minute", "queued_per_student", "isolation", "secret_file", "seed", "database",
                         "assignments", "extensions", "lti"})
#: a student's submissions of one assignment per day, unless the assignment's per_day says otherwise: with a worker or
#: two, one token uploading at the per-minute limit all day would queue more than they grade
DEFAULT_PER_DAY = 20
#: a student's uploads waiting to be graded at once, unless course.toml's queued_per_student says otherwise
DEFAULT_QUEUED = 5
ASSIGNMENT_KEYS = frozenset({"exercises", "assignment", "opens", "deadline", "late", "penalty_per_day",
                             "max_late_days", "per_day", "counts", "closes"})


@dataclass(frozen=True, slots=True, kw_only=True)
class Correction:
    """What an instructor set from the pages for one student's assignment, over what the rules would count."""

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
    #: without a late policy, late work is stored and marked, and counts 0: late credit is asked for explicitly
    late: Late = "none"
    penalty_per_day: float = 0.0
    #: days after the deadline past which a late submission counts 0 (stored and marked all the same)
    max_late_days: float | None = None
    #: submissions per student per day (0: no limit)
    per_day: int = DEFAULT_PER_DAY
    counts: Counts = "best"
    #: student id -> their own deadline (epoch seconds)
    extensions: dict[str, float] = field(default_factory=dict)
    #: uploads are refused after it (course.toml's `closes`); None: the deadline plus the days late work can count
    closes: float | None = None
    #: the points its exercises hold, hidden checks included (what a score set by hand is out of)
    points: float = 0.0
    #: student id -> the instructor's correction of what counts for them (set from the pages, kept in the store)
    corrections: dict[str, Correction] = field(default_factory=dict)

    def deadline_for(self, student: str) -> float | None:
        """The student's own deadline: their extension where it is later than the class's, else the class's. An
        extension never makes a deadline earlier (the class's moved past it), and without a class deadline there
        is none for anyone."""
        own = self.extensions.get(student)
        if own is None or self.deadline is None:
            return self.deadline
        return max(own, self.deadline)

    def extended(self, student: str) -> bool:
        """Whether the student's own deadline is later than the class's."""
        own = self.extensions.get(student)
        return own is not None and self.deadline is not None and own > self.deadline


@dataclass(frozen=True, slots=True, kw_only=True)
class Course:
    folder: Path
    name: str
    exercises: Path
    roster: Path | None
    timezone: tzinfo
    late_days: int
    max_upload_bytes: int
    uploads_per_minute: int
    isolation: Level
    secret_file: Path
    database: str
    assignments: dict[str, Rules]
    #: one seed for every submission (as `grade batch --seed`); None: each its own, from the secret (the default)
    fixed_seed: int | None = None
    #: days late are counted in whole days (a minute late is a day late) or whole hours
    late_rounding: Rounding = "day"
    #: LTI 1.3 launch from the LMS ([lti], grader.service.lti.lti_config); None: tokens are the only way in
    lti: LtiSettings | None = None
    #: a student's uploads waiting to be graded at once; past it an upload is refused (429, Retry-After). 0: no limit
    queued_per_student: int = DEFAULT_QUEUED

    @property
    def data(self) -> Path:
        return self.folder / DATA

    def catalog(self) -> Catalog:
        return Catalog(self.exercises)

    def exercise_ids(self) -> list[str]:
        return sorted({i for r in self.assignments.values() for i in r.exercise_ids})

    def assignment_for(self, exercise: str | None, assignment: str | None) -> Rules:
        """The assignment a submission is for, from what the student named (or their file's header declares)."""
        listed = ", ".join(sorted(self.assignments)) or "none"
        if assignment is not None:
            for rules in self.assignments.values():
                if assignment in (rules.id, rules.catalog_assignment):
                    return rules
            raise GraderError(f"this course has no assignment {assignment[:80]!r}; its assignments: {listed}.")
        if exercise is None:
            raise GraderError("which assignment is this for? Pass --assignment ID or --exercise ID, or add a line "
                              f"'# exercise: ID' to the file. This course's assignments: {listed}.")
        holding = [r for r in self.assignments.values() if exercise in r.exercise_ids]
        alone = [r for r in holding if r.exercise_ids == (exercise,)]
        if alone:
            return alone[0]
        if holding:
            raise GraderError(f"{exercise} is part of assignment {holding[0].id} "
                              f"({', '.join(holding[0].exercise_ids)}): submit one file that answers all of them, "
                              f"with --assignment {holding[0].id}.")
        raise GraderError(f"this course grades no exercise {exercise[:80]!r}; its assignments: {listed}.")

    def days_late(self, rules: Rules, student: str, received: float) -> float:
        """How late a submission received at `received` is, by the student's deadline in force now."""
        return days_late(received, rules.deadline_for(student), ROUNDING[self.late_rounding])

    def closes_for(self, rules: Rules, student: str) -> float | None:
        """When the assignment stops taking the student's uploads: course.toml's `closes` (never before their own
        deadline), else their deadline plus the time late work can still earn points under the late policy;
        None: never."""
        deadline = rules.deadline_for(student)
        if rules.closes is not None:
            return rules.closes if deadline is None else max(rules.closes, deadline)
        if deadline is None:
            return None
        grace = self.grace(rules)
        return None if grace is None else deadline + grace

    def grace(self, rules: Rules) -> float | None:
        """Seconds after a deadline in which late work can still earn points (None: always): the last whole
        `late_rounding` unit that counts, since a file a second into the next one counts 0."""
        unit = ROUNDING[self.late_rounding]
        if rules.late == "none":
            return 0.0
        if rules.late == "late-days":
            return self.late_days * DAY
        units = math.inf
        if rules.max_late_days is not None:
            units = math.floor(rules.max_late_days * DAY / unit + 1e-9)
        if rules.penalty_per_day > 0:  # the factor 1 - p * days reaches 0 at 1 / p days
            units = min(units, math.ceil(DAY / (rules.penalty_per_day * unit) - 1e-9) - 1)
        return None if units == math.inf else max(units, 0) * unit

    def secret(self) -> bytes:
        """The seed secret, made on first use (mode 600): hidden checks' inputs are drawn from it. The same file
        and rules as `grade batch`'s and `grade export`'s (grader.course.secret), so all three draw one seed."""
        if not self.secret_file.exists():
            write_new_secret(self.secret_file)
        return read_secret(self.secret_file).value


def find_course(explicit: Path | None) -> Path:
    """`explicit`, else $AUTOGRADER_COURSE, else the current folder: the folder holding course.toml."""
    folder = explicit or Path(os.environ.get("AUTOGRADER_COURSE") or ".")
    if not (folder / CONFIG).is_file():
        raise GraderError(f"{folder / CONFIG}: no course configuration here. Run in the course's folder, or pass "
                          f"--course DIR (or set $AUTOGRADER_COURSE); docs/server.md shows a course.toml.")
    return folder.resolve()


def load_course(folder: Path, *, database: str | None = None) -> Course:
    """Read and check `folder/course.toml`, and the catalog's exercises each assignment names."""
    path = folder / CONFIG
    try:
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise GraderError(f"{path}: cannot read the course configuration ({exc}).") from None
    where = Where(path, text)
    where.known(data, COURSE_KEYS, "")
    exercises = _exercises_folder(folder, where, data)
    catalog = Catalog(exercises)
    isolation = where.choice(data, "isolation", "landlock", LEVELS)
    zone_name = where.text(data, "timezone", "UTC")
    try:
        zone: tzinfo = UTC if zone_name == "UTC" else ZoneInfo(zone_name)
    except (ZoneInfoNotFoundError, ValueError):
        raise GraderError(f"{where.at('timezone')}: timezone {zone_name!r} is not a time zone (e.g. Europe/Paris, "
                          "UTC).") from None
    rounding = where.choice(data, "late_rounding", "day", tuple(ROUNDING), " (day: a minute late is a day late; "
                                                                          "hour: an hour late)")
    extensions = data.get("extensions", {})
    if not isinstance(extensions, dict):
        raise GraderError(f"{path}: [extensions] must be a table of assignments.")
    table = data.get("assignments", {})
    if not isinstance(table, dict) or not table:
        raise GraderError(f"{path}: no [assignments.ID] table: the course grades nothing.")
    assignments = {name: _rules(where, name, spec, catalog, extensions.get(name, {}), zone)
                   for name, spec in table.items()}
    _one_namespace(where, assignments, catalog)
    roster = where.text(data, "roster", "")
    return Course(folder=folder, name=where.text(data, "name", folder.name), exercises=exercises,
                  roster=folder / roster if roster else None, timezone=zone,
                  late_days=where.number(data, "late_days", 0), max_upload_bytes=where.number(
                      data, "max_upload_kib", 256) * 1024,
                  uploads_per_minute=where.number(data, "uploads_per_minute", 6),
                  queued_per_student=where.number(data, "queued_per_student", DEFAULT_QUEUED),
                  isolation=_level(isolation),
                  secret_file=folder / where.text(data, "secret_file", "course-secret"),
                  database=database or where.text(data, "database", "") or sqlite_url(folder / DATA / "course.db"),
                  assignments=assignments, fixed_seed=_seed(where, data.get("seed")),
                  late_rounding="hour" if rounding == "hour" else "day",
                  lti=read_lti(path, data.get("lti"), set(assignments)))


def _seed(where: Where, value: Any) -> int | None:
    if value is None or value == "per-submission":
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise GraderError(f"{where.at('seed')}: seed is a whole number, or \"per-submission\" (the default).")
    return value


def _level(name: str) -> Level:
    return next(level for level in LEVELS if level == name)


def sqlite_url(path: Path) -> str:
    return f"sqlite:///{path.resolve()}"


def _rules(where: Where, name: str, spec: Any, catalog: Catalog, extensions: Any, zone: tzinfo) -> Rules:
    at = f"assignments.{name}"
    if not isinstance(spec, dict):
        raise GraderError(f"{where.path}: [{at}] must be a table.")
    where.known(spec, ASSIGNMENT_KEYS, at)
    catalog_assignment = spec.get("assignment")
    try:
        if catalog_assignment is not None:
            exercises = catalog.load_assignment(str(catalog_assignment))[1]
        else:
            listed = spec.get("exercises")
            if not isinstance(listed, list) or not listed or not all(isinstance(i, str) for i in listed):
                raise GraderError(f"{at} needs exercises = [\"ID\", ...] or assignment = \"ID\".")
            exercises = _exercises(catalog, tuple(listed))
    except GraderError as exc:
        raise GraderError(f"{where.path}: {at}: {exc}") from None
    _answerable(where, at, exercises)
    ids = tuple(e.id for e in exercises)
    late = spec.get("late", "none")
    counts = spec.get("counts", "best")
    if late not in get_args(Late):
        raise GraderError(f"{where.at(f'{at}.late')}: {at}.late must be penalty, late-days or none, not {late!r}.")
    if counts not in get_args(Counts):
        raise GraderError(f"{where.at(f'{at}.counts')}: {at}.counts must be best or last, not {counts!r}.")
    penalty = spec.get("penalty_per_day")
    if late == "penalty" and penalty is None:  # 0% a day, for ever, would give late work full marks by default
        raise GraderError(f"{where.at(f'{at}.late')}: {at}.late = \"penalty\" needs penalty_per_day, the fraction "
                          "of the points taken off per day late (0 gives late work full marks however late).")
    if not isinstance(penalty, (int, float, type(None))) or not 0 <= (penalty or 0.0) <= 1:
        raise GraderError(f"{where.at(f'{at}.penalty_per_day')}: {at}.penalty_per_day is a fraction of the points "
                          "from 0 to 1.")
    max_days = spec.get("max_late_days")
    if max_days is not None and (not isinstance(max_days, (int, float)) or max_days < 0):
        raise GraderError(f"{where.at(f'{at}.max_late_days')}: {at}.max_late_days must be a number of days.")
    deadline = _moment(where, f"{at}.deadline", spec.get("deadline"), zone)
    if not isinstance(extensions, dict):
        raise GraderError(f"{where.at(f'extensions.{name}')}: [extensions.{name}] must map student ids to a "
                          "deadline or days.")
    granted: dict[str, float] = {}
    for student, value in extensions.items():
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if deadline is None:
                raise GraderError(f"{where.at(f'extensions.{name}.{student}')}: extensions.{name}.{student}: days "
                                  "of extension need a deadline.")
            granted[str(student)] = deadline + float(value) * DAY
        else:
            moment = _moment(where, f"extensions.{name}.{student}", value, zone)
            if moment is None:
                raise GraderError(f"{where.at(f'extensions.{name}.{student}')}: extensions.{name}.{student} needs a "
                                  "date or a number of days.")
            granted[str(student)] = moment
    closes = _moment(where, f"{at}.closes", spec.get("closes"), zone)
    if closes is not None and deadline is not None and closes < deadline:
        raise GraderError(f"{where.at(f'{at}.closes')}: {at}.closes is before its deadline: uploads would be "
                          "refused while they are still on time. Set it after the deadline, or leave it out (the "
                          "deadline plus the days late work can count).")
    return Rules(id=name, exercise_ids=ids, catalog_assignment=str(catalog_assignment) if catalog_assignment else None,
                 opens=_moment(where, f"{at}.opens", spec.get("opens"), zone), deadline=deadline,
                 late=late, penalty_per_day=float(penalty or 0.0), max_late_days=float(max_days) if max_days is not None
                 else None, per_day=where.number(spec, "per_day", DEFAULT_PER_DAY, at), counts=counts,
                 extensions=granted, closes=closes, points=round(sum(e.points for e in exercises), 6))


def _one_namespace(where: Where, assignments: dict[str, Rules], catalog: Catalog) -> None:
    """What a student names with `--assignment` (or a notebook's metadata) is course.toml's assignment id, or the
    catalog's assignment one of them stands for (`assignment = "ID"`): each name must mean one assignment."""
    owner: dict[str, str] = {}
    for rules in assignments.values():
        if rules.catalog_assignment is not None and rules.catalog_assignment != rules.id:
            taken = owner.get(rules.catalog_assignment) or (
                rules.catalog_assignment if rules.catalog_assignment in assignments else None)
            if taken is not None:
                raise GraderError(
                    f"{where.at(f'assignments.{rules.id}.assignment')}: assignments.{rules.id} stands for the "
                    f"catalog's assignment {rules.catalog_assignment}, a name that already means assignments."
                    f"{taken}: `grade submit --assignment {rules.catalog_assignment}` could mean either. Give each "
                    f"its own name.")
            owner[rules.catalog_assignment] = rules.id
    catalog_ids = set(catalog.assignment_ids())
    for rules in assignments.values():
        if rules.catalog_assignment is None and rules.id in catalog_ids:
            graded = tuple(e.id for e in catalog.load_assignment(rules.id)[1])
            if graded != rules.exercise_ids:
                raise GraderError(
                    f"{where.at(f'assignments.{rules.id}.exercises')}: assignments.{rules.id} grades "
                    f"{', '.join(rules.exercise_ids)}, but the catalog's assignment {rules.id} "
                    f"(exercises/assignments/{rules.id}.yaml) is {', '.join(graded)}: a notebook made for the one "
                    f"would be graded as the other. Rename one, or write assignment = \"{rules.id}\" to take the "
                    f"catalog's.")


def _answerable(where: Where, at: str, exercises: list[Exercise]) -> None:
    """An assignment is answered by one file: its exercises must not need the same name (two `Node`s), or every
    upload would be refused."""
    shared = shared_name(exercises)
    if shared is None:
        return
    name, first, second = shared
    raise GraderError(
        f"{where.at(f'{at}.exercises')}: {at}.exercises: {first} and {second} both need `{name}`, and one "
        f"uploaded file answers all of an assignment's exercises, so no file can answer {at.split('.', 1)[1]}: "
        f"every upload would be refused (an assignment's exercises must not need the same name). Make each "
        f"an assignment of its own ([assignments.{first}] exercises = [\"{first}\"], and the same for "
        f"{second}), or keep exercises that define different names together.")


def _exercises_folder(folder: Path, where: Where, data: dict[str, Any]) -> Path:
    """course.toml's `exercises` (relative to it); without one, the course folder's exercises/, else the catalog
    `grade` itself finds ($AUTOGRADER_EXERCISES, else the one beside the grader): a course may name catalog ids."""
    if "exercises" in data or (folder / "exercises").is_dir():
        exercises = folder / where.text(data, "exercises", "exercises")
        if not exercises.is_dir():
            raise GraderError(f"{where.path}: exercises: {exercises} is not a folder.")
        return exercises
    try:
        return Catalog.find().root
    except GraderError:
        named = os.environ.get(ENV_VAR)
        elsewhere = f"${ENV_VAR} ({named}) is not a folder" if named else \
            f"${ENV_VAR} is not set (an installed grader holds no catalog of its own)"
        raise GraderError(f"{where.path}: which exercises? The course folder has no exercises/, and {elsewhere}. Set "
                          f"exercises = \"PATH\" in course.toml, or ${ENV_VAR} to the catalog's folder.") from None


def _exercises(catalog: Catalog, ids: tuple[str, ...]) -> list[Exercise]:
    return [catalog.load(i) for i in ids]


def _moment(where: Where, key: str, value: Any, zone: tzinfo) -> float | None:
    """A TOML date-time (or an ISO 8601 string) as epoch seconds; a time without an offset is the course's zone."""
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            raise GraderError(f"{where.at(key)}: {key}: {value!r} is not a date and time (2026-12-01T23:59:00Z).") \
                from None
    if not isinstance(value, datetime):
        raise GraderError(f"{where.at(key)}: {key} must be a date and time, like 2026-12-01T23:59:00Z.")
    if value.tzinfo is None:
        value = value.replace(tzinfo=zone)
    return float(value.timestamp())


def days_late(received: float, deadline: float | None, unit: float = DAY) -> float:
    """Days late, rounded up to a whole `unit` (by default a day: a minute late is a day late); 0 when on time or
    with no deadline."""
    if deadline is None or received <= deadline:
        return 0.0
    return math.ceil((received - deadline) / unit - 1e-9) * unit / DAY


def day_of(moment: float, zone: tzinfo) -> tuple[float, float]:
    """The start and end (epoch seconds) of the course's day holding `moment`."""
    local = datetime.fromtimestamp(moment, zone)
    start = local.replace(hour=0, minute=0, second=0, microsecond=0)
    return start.timestamp(), (start + timedelta(days=1)).timestamp()
