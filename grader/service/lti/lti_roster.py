"""`grade roster sync`: the course's roster from the LMS's Names and Roles service
(grader.course.lms.nrps), written to the store beside the students a CSV roster brought.

Every LMS context the course is linked to (a course, a section: [lti] context_id)
keeps its own Names and Roles URL, which its launches carry (grader.service.lti.lti);
a sync reads every one, and nothing is written unless every page of every one was
read. A member is one of the course's while any linked context lists them; one that no
context lists as an active learner any more is removed: their LTI id is cleared (their
launches' sessions end with it) and their tokens are revoked; their submissions stay.

Identities are linked only by what the LMS vouches for, by one id kind the course names
([lti] link_by): the LMS user id against the roster's lti_user_id (the default), or the
SIS id the LMS gives (lis_person_sourcedid) against the roster's sis_user_id column. Never
across kinds (an LMS user whose SIS id equals another student's gradebook id took over
that student's row), and never by email or name, which a student may be able to change in
the LMS. A collision (one SIS id claimed by two members, naming two rows, or a row already
linked to another LMS user) is refused and reported, never resolved by a guess.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, Engine, insert, select, update

from grader.core.errors import GraderError
from grader.course.lms.nrps import Member, fetch_members
from grader.service.db import schema
from grader.service.db.store import reading, writing
from grader.service.lti.lti import INSTRUCTOR_ROLES
from grader.service.lti.lti_config import LtiSettings
from grader.service.tokens import revoke


@dataclass(frozen=True, slots=True)
class Source:
    """A linked context's Names and Roles URL ("" context:
    the registration's memberships_url, for the one)."""

    context: str
    url: str


@dataclass(frozen=True, slots=True)
class Linking:
    """How this sync links a member not linked yet: the
    course's id kind, and how many members give each SIS id."""

    kind: str
    claimed: Counter[str]


@dataclass(frozen=True, slots=True)
class Synced:
    pages: int
    members: int
    #: the contexts read
    contexts: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    linked: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    #: members not written, with why
    skipped: list[str] = field(default_factory=list)
    #: members whose link would collide with another's,
    #: with why: refused, for the instructor to sort out
    refused: list[str] = field(default_factory=list)


def sources(engine: Engine, settings: LtiSettings) -> list[Source]:
    """The Names and Roles URL of every linked context: the registration's memberships_url
    for a course of one context, else the one each context's launches carried. A linked
    context without one stops the sync: reading the others alone would remove its students."""
    linked = list(settings.context_ids)
    registration = settings.platform.memberships_url
    if registration and len(linked) <= 1:
        return [Source(linked[0] if linked else "", registration)]
    c = schema.lti_contexts.c
    with reading(engine) as db:
        rows = db.execute(
            select(c.context_id, c.memberships_url)
            .where(c.platform.in_(list(settings.deployments())), c.memberships_url != "")
            .order_by(c.seen_at.desc())
        ).all()
    found: dict[str, str] = {}
    for row in rows:  # the newest launch's, where a context was launched under two deployments
        found.setdefault(str(row.context_id), str(row.memberships_url))
    missing = [context for context in linked if context not in found]
    if missing or not linked:
        which = f" for LMS context(s) {', '.join(missing)}" if missing else ""
        raise GraderError(
            f"which Names and Roles URL{which}? Launch the tool once from each LMS course or "
            "section linked in [lti] context_id (it sends the URL), or set memberships_url in "
            f"{settings.registration} (a course of one context). Nothing was changed: the students "
            f"of a context not read would be removed."
        )
    return [Source(context, found[context]) for context in linked]


def sync_roster(engine: Engine, settings: LtiSettings, *, dry_run: bool = False) -> Synced:
    learners, teachers, pages = _members(settings, sources(engine, settings))
    st = schema.students.c
    with writing(engine) as db:
        rows = list(
            db.execute(select(st.id, st.role, st.lti_user_id, st.sis_user_id, st.name, st.email))
        )
        if not learners and any(r.lti_user_id and r.role == "student" for r in rows):
            raise GraderError(
                "the LMS lists no active student in the course: nothing was changed (an LMS that "
                "answers an empty course by mistake would otherwise remove everyone)."
            )
        result = Synced(pages, len(learners) + len(teachers), contexts=list(settings.context_ids))
        linking = Linking(
            settings.link_by, Counter(m.sourcedid for m in learners.values() if m.sourcedid)
        )
        for member in sorted(learners.values(), key=lambda m: m.user_id):
            _sync_member(db, rows, member, linking, result, dry_run)
        for row in rows:
            listed = learners if row.role == "student" else teachers
            if row.lti_user_id and row.lti_user_id not in listed:
                result.removed.append(row.id)
                if not dry_run:
                    db.execute(
                        update(schema.students).where(st.id == row.id).values(lti_user_id="")
                    )
    if not dry_run:
        for student in result.removed:
            revoke(engine, student)  # their tokens, and every session they hold
    return result


def _members(settings: LtiSettings, found: list[Source]) -> tuple[dict[str, Member], set[str], int]:
    """Every linked context's active learners (by LMS user id) and
    teachers, read whole before anything is written; and the pages read."""
    learners: dict[str, Member] = {}
    teachers: set[str] = set()
    pages = 0
    for source in found:
        membership = fetch_members(settings.platform, source.url)
        if source.context and membership.context_id and membership.context_id != source.context:
            raise GraderError(
                f"{source.url}: the LMS answered the members of context {membership.context_id!r}, "
                f"not of {source.context!r}; nothing was changed."
            )
        pages += membership.pages
        for member in membership.members:
            if member.learner:
                learners.setdefault(member.user_id, member)
            elif member.status == "Active" and any(r in INSTRUCTOR_ROLES for r in member.roles):
                teachers.add(member.user_id)
    return learners, teachers, pages


def _sync_member(
    db: Connection, rows: list[Any], member: Member, linking: Linking, result: Synced, dry_run: bool
) -> None:
    """One active learner: their row updated, linked
    by the course's id kind, or added; or why not."""
    row = next((r for r in rows if r.lti_user_id == member.user_id), None)
    if row is None:
        found = _linkable(rows, member, linking)
        if isinstance(found, str):
            result.refused.append(f"{member.user_id} ({found})")
            return
        row = found
        if row is not None:
            result.linked.append(row.id)
    if row is None:
        _add(db, rows, member, result, dry_run)
        return
    if row.role != "student":
        result.skipped.append(f"{row.id} (listed as a student, and an instructor here)")
        return
    changes = _changes(rows, row, member)
    if changes and row.id not in result.linked:
        result.updated.append(row.id)
    if changes and not dry_run:
        st = schema.students.c
        db.execute(update(schema.students).where(st.id == row.id).values(**changes))


def _linkable(rows: list[Any], member: Member, linking: Linking) -> Any:
    """The roster row an LMS member not yet linked is linked to (None: a row of
    their own is added), or why not, when their SIS id collides with another's."""
    sis = member.sourcedid
    if not sis:
        return None
    if linking.claimed[sis] > 1:
        return f"{linking.claimed[sis]} LMS members give the SIS id {sis!r}"
    holders = [r for r in rows if r.sis_user_id == sis]
    if linking.kind != "sis_user_id":
        if (
            holders
        ):  # a row of their own would share the SIS id of another: the same person, or a forged id
            return (
                f"roster row {holders[0].id!r} has their SIS id {sis!r}, and [lti] link_by = "
                "\"lti_user_id\" links by LMS user id only: give the row its lti_user_id, or link "
                "by SIS id"
            )
        return None
    if len(holders) > 1:
        return (
            f"their SIS id {sis!r} names {len(holders)} roster rows: "
            f"{', '.join(r.id for r in holders)}"
        )
    if holders and holders[0].lti_user_id:
        return (
            f"roster row {holders[0].id!r} has their SIS id {sis!r} and is linked to another LMS "
            "user"
        )
    return holders[0] if holders else None


def _add(db: Connection, rows: list[Any], member: Member, result: Synced, dry_run: bool) -> None:
    taken = {r.id for r in rows} | set(result.added)
    ident = next(
        (
            i
            for i in (member.sourcedid, member.user_id, f"lti:{member.user_id}")
            if i and len(i) <= 200 and i not in taken
        ),
        None,
    )
    if ident is None:
        result.skipped.append(f"{member.user_id} (no free roster id)")
        return
    result.added.append(ident)
    if not dry_run:
        db.execute(
            insert(schema.students).values(
                id=ident,
                name=member.name or ident,
                email=member.email,
                sis_user_id=member.sourcedid,
                sis_login_id="",
                section="",
                role="student",
                lti_user_id=member.user_id,
            )
        )


def _changes(rows: list[Any], row: Any, member: Member) -> dict[str, str]:
    """What the LMS says that the roster does not: its LTI id, and
    its name, email and SIS id where it gives them (an SIS id
    another row holds is left: it would make that id name two rows)."""
    wanted = {
        "lti_user_id": member.user_id,
        "name": member.name,
        "email": member.email,
        "sis_user_id": member.sourcedid,
    }
    if any(r.sis_user_id == member.sourcedid and r.id != row.id for r in rows):
        del wanted["sis_user_id"]
    return {k: v for k, v in wanted.items() if v and getattr(row, k) != v}
