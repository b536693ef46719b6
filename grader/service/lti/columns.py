"""An assignment's counted scores sent to its own LMS column: the course server's publish, from the
instructor's page and from `grade gradebook --publish`.

Which column (line item) is one rule, in this order:

1. course.toml's [lti.lineitems] names it;
2. else the launches of the assignment's LMS link named it: a launch's AGS endpoint claim carries
   the `lineitem` of its link, which the platform made when the link was added with a column (Deep
   Linking's `lineItem`, or an assignment of the LMS that launches the tool); `remember` keeps it
   with the assignment the link opens;
3. else the platform's line items service holds it (resourceId: the assignment's id) or makes it
   there (grader.course.lms.lineitems): the registration's `lineitems`, else the one the last launch
   carried.

Two columns named for one assignment, or one column named for two, are refused: publishing never
guesses. What was sent is recorded per line item in the course's server/published/lti.json, with the
assignment each holds.

Before an assignment's deadline has passed for a student (their extension included),
their score counts the hidden checks, whose verdicts they are not shown until then
(grader.service.policy.release.is_released): such students are held back unless the
instructor releases their hidden results with the scores (`release_hidden`), and
what each choice releases is said first (`before_deadline`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import Connection, Engine, insert, select, update

from grader.core.errors import GraderError
from grader.course.lms.platform import Platform
from grader.course.lms.publish import Published, Target, publish_lti
from grader.service.config import Course, Rules
from grader.service.db import schema
from grader.service.db.store import reading
from grader.service.lti.lti_config import LtiSettings

AGS_CLAIM = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
#: what publishing sent, per line item, for the whole course (its data folder)
RECORD = Path("published") / "lti.json"
#: a URL longer than this in a launch's claim is not kept (no platform's is near it)
_URL_CAP = 2048


def remember(
    db: Connection, deployment: str, assignment: str | None, link: str, claims: Mapping[str, Any]
) -> None:
    """Keep what a launch's AGS endpoint claim says: its LMS course's line items service, and the
    line item of the link (for the assignment the link opens)."""
    claim = claims.get(AGS_CLAIM)
    if not isinstance(claim, dict):
        return
    p, li = schema.lti_platforms.c, schema.lti_lineitems.c
    service = claim.get("lineitems")
    if _url(service):
        db.execute(
            update(schema.lti_platforms).where(p.id == deployment).values(lineitems_url=service)
        )
    lineitem = claim.get("lineitem")
    if assignment is None or not _url(lineitem):
        return
    ident = hashlib.sha256(f"{assignment}\n{lineitem}".encode()).hexdigest()
    now = time.time()
    if (
        db.execute(
            update(schema.lti_lineitems)
            .where(li.id == ident)
            .values(seen_at=now, resource_link=link[:_URL_CAP])
        ).rowcount
        == 0
    ):
        db.execute(
            insert(schema.lti_lineitems).values(
                id=ident,
                assignment=assignment,
                lineitem=lineitem,
                resource_link=link[:_URL_CAP],
                seen_at=now,
            )
        )


def _url(value: Any) -> bool:
    return (
        isinstance(value, str)
        and len(value) <= _URL_CAP
        and urlsplit(value).scheme in ("http", "https")
        and bool(urlsplit(value).netloc)
    )


def target(engine: Engine, course: Course, settings: LtiSettings | None, assignment: str) -> Target:
    """Where `assignment`'s scores go: the line item named for it (course.toml, its links'
    launches), or none named (the line items service is asked), with the course's record."""
    record = course.data / RECORD
    named = settings.lineitems if settings is not None else {}
    if assignment in named:
        return Target(
            assignment=assignment,
            lineitem=named[assignment],
            source="course.toml [lti.lineitems]",
            record=record,
        )
    with reading(engine) as db:
        rows = db.execute(select(schema.lti_lineitems)).all()
    mine = sorted({(r.lineitem, r.resource_link) for r in rows if r.assignment == assignment})
    urls = sorted({url for url, _ in mine})
    if len(urls) > 1:
        links = ", ".join(f"link {link}: {url}" for url, link in mine[:4])
        raise GraderError(
            f"{assignment} has {len(urls)} LMS columns ({links}), and publishing does not guess "
            "which: name one in course.toml's [lti.lineitems] (or remove the other link's column "
            "in the LMS). Nothing was sent."
        )
    if not urls:
        return Target(assignment=assignment, record=record)
    others = sorted(
        {r.assignment for r in rows if r.lineitem == urls[0] and r.assignment != assignment}
        | {a for a, url in named.items() if url == urls[0]}
    )
    if others:
        raise GraderError(
            f"the LMS column {urls[0]} is named for {assignment} and for {', '.join(others)} (by "
            "the launches of their links), and one column holds one assignment: name each one's "
            "column in course.toml's [lti.lineitems]. Nothing was sent."
        )
    return Target(
        assignment=assignment,
        lineitem=urls[0],
        source=f"the launch of its LMS link {mine[0][1]}",
        record=record,
    )


def service(engine: Engine, platform: Platform, settings: LtiSettings | None) -> Platform:
    """`platform` with its line items service: the registration's, else the one the last launch
    carried."""
    if platform.lineitems or settings is None:
        return platform
    p = schema.lti_platforms.c
    with reading(engine) as db:
        found = (
            db.execute(
                select(p.lineitems_url).where(
                    p.id.in_(list(settings.deployments())), p.lineitems_url != ""
                )
            )
            .scalars()
            .first()
        )
    return dataclasses.replace(platform, lineitems=found) if found else platform


@dataclass(frozen=True, slots=True)
class Early:
    """The students of an assignment whose own deadline (extension included) has not passed: a
    score sent now tells them what its hidden checks gave."""

    held: tuple[str, ...]
    #: of them, those whose deadline is an extension
    extended: int
    students: int


def before_deadline(engine: Engine, course: Course, rules: Rules) -> Early:
    from grader.service.gradebook import roster
    from grader.service.policy.release import is_released

    students = [s.id for s in roster(engine)]
    held = tuple(s for s in students if not is_released(course, s, rules.id))
    return Early(held, sum(1 for s in held if rules.extended(s)), len(students))


def publish(
    engine: Engine,
    course: Course,
    rules: Rules,
    platform: Platform,
    *,
    release_hidden: bool = False,
    folder: Path | None = None,
) -> Published:
    """Send the assignment's counted scores (`folder`, as grader.service.gradebook.export wrote
    them; written now where not given) to its own column; the students whose deadline has not
    passed are held back, unless `release_hidden`."""
    from grader.service.gradebook import export

    settings = course.lti
    where = target(engine, course, settings, rules.id)
    held = () if release_hidden else before_deadline(engine, course, rules).held
    if folder is None:
        folder, _ = export(engine, course, rules)
    return publish_lti(
        folder, service(engine, platform, settings), where, held=held, say=lambda _: None
    )


def said(done: Published) -> str:
    """What a publish did, in a line (the audit log's, and `grade gradebook --publish`'s)."""
    held = f", {len(done.held)} held back (their deadline has not passed)" if done.held else ""
    return (
        f"{len(done.sent)} score(s) sent to {done.lineitem} ({done.how}), {done.unchanged} "
        f"unchanged, {len(done.skipped)} skipped{held}"
    )
