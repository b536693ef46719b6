"""A course server's configuration: `course.toml` in the course folder, checked
whole, frozen (the server reads it again when it changes: grader.service.live_course).

    name = "Autograd 101"
    # the catalog, relative to this file (default: the folder's exercises/, else the catalog grade
    # finds: $AUTOGRADER_EXERCISES, or the grader's own)
    exercises = "exercises"
    roster = "roster.csv"              # what `grade tokens` reads by default
    # when a day starts, for daily limits and days late (default UTC)
    timezone = "Europe/Paris"
    late_days = 3                      # each student's budget, for late = "late-days"
    # a minute late is a day late (default); "hour": a minute late is an hour
    late_rounding = "day"
    max_upload_kib = 256
    uploads_per_minute = 6             # per token; more gets 429 with Retry-After
    # uploads waiting to be graded per student; more gets 429 (0: no limit)
    queued_per_student = 5
    isolation = "landlock"             # the weakest confinement a submission may be graded under
    secret_file = "course-secret"      # the seed secret (created, mode 600, on first start)
    # one seed for every submission, as grade batch --seed (default: each its own)
    # seed = 4217
    # default: SQLite, server/course.db
    # database = "postgresql://grader@db.example.edu/autograd"

    [assignments.hw1]
    exercises = ["node-mul"]           # or: assignment = "autograd" (one of the catalog's)
    opens = 2026-11-01T00:00:00Z
    deadline = 2026-12-01T23:59:00Z
    # penalty (penalty_per_day, max_late_days), late-days, or none (default)
    late = "penalty"
    penalty_per_day = 0.1
    max_late_days = 3
    per_day = 5                        # submissions per student per day (default 20; 0: no limit)
    counts = "best"                    # or "last"
    # uploads refused after it (default: the deadline + the late days the policy lets count:
    # max_late_days, the penalty's, late_days, or none)
    # closes = 2026-12-04T23:59:00Z

    [extensions.hw1]
    # a new deadline for one student, or a number of days: s1235 = 2
    s1234 = 2026-12-03T23:59:00Z

    [lti]                              # launches from the LMS: grader.service.lti.lti_config
"""

from __future__ import annotations

import math
import os
import tomllib
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from pathlib import Path
from typing import Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from grader.core.errors import GraderError
from grader.course.secret import read_secret, write_new_secret
from grader.judge.catalog import ENV_VAR, Catalog
from grader.run.confine.isolate import LEVELS, Level
from grader.service.lti.lti_config import LtiSettings, read_lti
from grader.service.policy.rules import DAY as DAY
from grader.service.policy.rules import DEFAULT_PER_DAY as DEFAULT_PER_DAY
from grader.service.policy.rules import Correction as Correction
from grader.service.policy.rules import Counts as Counts
from grader.service.policy.rules import Fix as Fix
from grader.service.policy.rules import Late as Late
from grader.service.policy.rules import Rules as Rules
from grader.service.policy.rules import one_namespace, read_rules
from grader.service.toml_file import TomlFile

CONFIG = "course.toml"
#: the server's own files in the course folder: the SQLite
#: store, the workers' scratch, the gradebook's folder
DATA = "server"
Rounding = Literal["day", "hour"]
#: what days late are counted in, by course.toml's late_rounding: part of one counts whole
ROUNDING = {"day": DAY, "hour": 3600.0}
#: the keys course.toml may hold, at its top and in an assignment: any other is a typo, named
#: with its line (`penalty_perday = 0.1` ignored would leave late work at the default, 0)
COURSE_KEYS = frozenset(
    {
        "name",
        "exercises",
        "roster",
        "timezone",
        "late_days",
        "late_rounding",
        "max_upload_kib",
        "uploads_per_minute",
        "queued_per_student",
        "isolation",
        "secret_file",
        "seed",
        "database",
        "assignments",
        "extensions",
        "lti",
    }
)
#: a student's uploads waiting to be graded at once,
#: unless course.toml's queued_per_student says otherwise
DEFAULT_QUEUED = 5


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
    #: one seed for every submission (as `grade batch --seed`);
    #: None: each its own, from the secret (the default)
    fixed_seed: int | None = None
    #: days late are counted in whole days (a minute late is a day late) or whole hours
    late_rounding: Rounding = "day"
    #: LTI 1.3 launch from the LMS ([lti],
    #: grader.service.lti.lti_config); None: tokens are the only way in
    lti: LtiSettings | None = None
    #: a student's uploads waiting to be graded at once; past
    #: it an upload is refused (429, Retry-After). 0: no limit
    queued_per_student: int = DEFAULT_QUEUED

    @property
    def data(self) -> Path:
        return self.folder / DATA

    def catalog(self) -> Catalog:
        return Catalog(self.exercises)

    def exercise_ids(self) -> list[str]:
        ids: set[str] = set()
        for rules in self.assignments.values():
            ids.update(rules.exercise_ids)
        return sorted(ids)

    def assignment_for(self, exercise: str | None, assignment: str | None) -> Rules:
        """The assignment a submission is for, from what the
        student named (or their file's header declares)."""
        listed = ", ".join(sorted(self.assignments)) or "none"
        if assignment is not None:
            for rules in self.assignments.values():
                if assignment in (rules.id, rules.catalog_assignment):
                    return rules
            raise GraderError(
                f"this course has no assignment {assignment[:80]!r}; its assignments: {listed}."
            )
        if exercise is None:
            raise GraderError(
                "which assignment is this for? Pass --assignment ID or --exercise ID, or add a "
                f"line '# exercise: ID' to the file. This course's assignments: {listed}."
            )
        holding = [r for r in self.assignments.values() if exercise in r.exercise_ids]
        alone = [r for r in holding if r.exercise_ids == (exercise,)]
        if alone:
            return alone[0]
        if holding:
            raise GraderError(
                f"{exercise} is part of assignment {holding[0].id} "
                f"({', '.join(holding[0].exercise_ids)}): submit one file that answers all of "
                f"them, with --assignment {holding[0].id}."
            )
        raise GraderError(
            f"this course grades no exercise {exercise[:80]!r}; its assignments: {listed}."
        )

    def days_late(self, rules: Rules, student: str, received: float) -> float:
        """How late a submission received at `received`
        is, by the student's deadline in force now."""
        return days_late(received, rules.deadline_for(student), ROUNDING[self.late_rounding])

    def closes_for(self, rules: Rules, student: str) -> float | None:
        """When the assignment stops taking the student's uploads: course.toml's
        `closes` (never before their own deadline), else their deadline plus the
        time late work can still earn points under the late policy; None: never."""
        deadline = rules.deadline_for(student)
        if rules.closes is not None:
            return rules.closes if deadline is None else max(rules.closes, deadline)
        if deadline is None:
            return None
        grace = self.grace(rules)
        return None if grace is None else deadline + grace

    def grace(self, rules: Rules) -> float | None:
        """Seconds after a deadline in which late work can still earn
        points (None: always): the last whole `late_rounding` unit
        that counts, since a file a second into the next one counts 0."""
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
        """The seed secret, made on first use (mode 600): every check's inputs
        are drawn from it. The same file and rules as `grade batch`'s and
        `grade export`'s (grader.course.secret), so all three draw one seed."""
        if not self.secret_file.exists():
            write_new_secret(self.secret_file)
        return read_secret(self.secret_file).value


def find_course(explicit: Path | None) -> Path:
    """`explicit`, else $AUTOGRADER_COURSE, else the
    current folder: the folder holding course.toml."""
    folder = explicit or Path(os.environ.get("AUTOGRADER_COURSE") or ".")
    if not (folder / CONFIG).is_file():
        raise GraderError(
            f"{folder / CONFIG}: no course configuration here. Run in the course's folder, or pass "
            f"--course DIR (or set $AUTOGRADER_COURSE); docs/server.md shows a course.toml."
        )
    return folder.resolve()


def load_course(folder: Path, *, database: str | None = None) -> Course:
    """Read and check `folder/course.toml`, and the catalog's exercises each assignment names."""
    path = folder / CONFIG
    try:
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise GraderError(f"{path}: cannot read the course configuration ({exc}).") from None
    toml = TomlFile(path, text)
    toml.known(data, COURSE_KEYS, "")
    exercises = _exercises_folder(folder, toml, data)
    catalog = Catalog(exercises)
    isolation = toml.choice(data, "isolation", "landlock", LEVELS)
    zone_name = toml.text(data, "timezone", "UTC")
    try:
        zone: tzinfo = UTC if zone_name == "UTC" else ZoneInfo(zone_name)
    except (ZoneInfoNotFoundError, ValueError):
        raise GraderError(
            f"{toml.at('timezone')}: timezone {zone_name!r} is not a time zone (e.g. Europe/Paris, "
            "UTC)."
        ) from None
    rounding = toml.choice(
        data,
        "late_rounding",
        "day",
        tuple(ROUNDING),
        " (day: a minute late is a day late; hour: an hour late)",
    )
    extensions = data.get("extensions", {})
    if not isinstance(extensions, dict):
        raise GraderError(f"{path}: [extensions] must be a table of assignments.")
    table = data.get("assignments", {})
    if not isinstance(table, dict) or not table:
        raise GraderError(f"{path}: no [assignments.ID] table: the course grades nothing.")
    assignments = {
        name: read_rules(toml, name, spec, catalog, extensions.get(name, {}), zone)
        for name, spec in table.items()
    }
    one_namespace(toml, assignments, catalog)
    roster = toml.text(data, "roster", "")
    return Course(
        folder=folder,
        name=toml.text(data, "name", folder.name),
        exercises=exercises,
        roster=folder / roster if roster else None,
        timezone=zone,
        late_days=toml.number(data, "late_days", 0),
        max_upload_bytes=toml.number(data, "max_upload_kib", 256) * 1024,
        uploads_per_minute=toml.number(data, "uploads_per_minute", 6),
        queued_per_student=toml.number(data, "queued_per_student", DEFAULT_QUEUED),
        isolation=_level(isolation),
        secret_file=folder / toml.text(data, "secret_file", "course-secret"),
        database=database
        or toml.text(data, "database", "")
        or sqlite_url(folder / DATA / "course.db"),
        assignments=assignments,
        fixed_seed=_seed(toml, data.get("seed")),
        late_rounding="hour" if rounding == "hour" else "day",
        lti=read_lti(path, data.get("lti"), set(assignments)),
    )


def _seed(toml: TomlFile, value: Any) -> int | None:
    if value is None or value == "per-submission":
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise GraderError(
            f"{toml.at('seed')}: seed is a whole number, or \"per-submission\" (the default)."
        )
    return value


def _level(name: str) -> Level:
    return next(level for level in LEVELS if level == name)


def sqlite_url(path: Path) -> str:
    return f"sqlite:///{path.resolve()}"


def _exercises_folder(folder: Path, toml: TomlFile, data: dict[str, Any]) -> Path:
    """course.toml's `exercises` (relative to it); without one, the course folder's
    exercises/, else the catalog `grade` itself finds ($AUTOGRADER_EXERCISES, else
    the one beside the grader): a course may name catalog ids."""
    if "exercises" in data or (folder / "exercises").is_dir():
        exercises = folder / toml.text(data, "exercises", "exercises")
        if not exercises.is_dir():
            raise GraderError(f"{toml.path}: exercises: {exercises} is not a folder.")
        return exercises
    try:
        return Catalog.find().root
    except GraderError:
        named = os.environ.get(ENV_VAR)
        elsewhere = (
            f"${ENV_VAR} ({named}) is not a folder"
            if named
            else f"${ENV_VAR} is not set (an installed grader holds no catalog of its own)"
        )
        raise GraderError(
            f"{toml.path}: which exercises? The course folder has no exercises/, and {elsewhere}. "
            f"Set exercises = \"PATH\" in course.toml, or ${ENV_VAR} to the catalog's folder."
        ) from None


def days_late(received: float, deadline: float | None, unit: float = DAY) -> float:
    """Days late, rounded up to a whole `unit` (by default a day: a
    minute late is a day late); 0 when on time or with no deadline."""
    if deadline is None or received <= deadline:
        return 0.0
    return math.ceil((received - deadline) / unit - 1e-9) * unit / DAY


def day_of(moment: float, zone: tzinfo) -> tuple[float, float]:
    """The start and end (epoch seconds) of the course's day holding `moment`."""
    local = datetime.fromtimestamp(moment, zone)
    start = local.replace(hour=0, minute=0, second=0, microsecond=0)
    return start.timestamp(), (start + timedelta(days=1)).timestamp()
