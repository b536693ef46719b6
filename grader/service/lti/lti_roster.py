"""`grade roster sync`: the course's roster from the LMS's Names and Roles service (grader.course.lms.nrps), written to
the store beside the students a CSV roster brought.

A member is matched by their LTI user id; failing that, by their SIS id (`lis_person_sourcedid`) to a roster
student who has no LTI id yet, which links them. Never by email or name, which a student may be able to change in
the LMS: a student who put a classmate's address in their profile must not be handed the classmate's roster entry
(and with it, their launches). A student the LMS no longer lists as an active learner is removed: their LTI id is
cleared (their launches' sessions end with it) and their tokens are revoked; their submissions stay. Nothing is
written unless every page was read.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import Engine, insert, select, update

from grader.core.errors import GraderError
from grader.course.lms.nrps import Member, fetch_members
from grader.service.db import schema
from grader.service.db.store import reading, writing
from grader.service.lti.lti import INSTRUCTOR_ROLES
from grader.service.lti.lti_config import LtiSettings
from grader.service.tokens import revoke


@dataclass(frozen=True, slots=True)
class Synced:
    pages: int
    members: int
    added: list[str] = field(default_factory=list)
    linked: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    #: members not written, with why
    skipped: list[str] = field(default_factory=list)


def memberships_url(engine: Engine, settings: LtiSettings) -> str:
    """The registration's memberships_url, else the one the platform's last launch carried."""
    if settings.platform.memberships_url:
        return settings.platform.memberships_url
    p = schema.lti_platforms.c
    with reading(engine) as db:
        found = [str(row.memberships_url) for row in db.execute(select(p.memberships_url).where(
            p.id.in_(list(settings.deployments())), p.memberships_url != ""))]
    if not found:
        raise GraderError("which Names and Roles URL? Launch the tool once from the LMS course (it sends the URL), "
                          f"or set memberships_url in {settings.registration}.")
    return found[0]


def sync_roster(engine: Engine, settings: LtiSettings, *, dry_run: bool = False) -> Synced:
    membership = fetch_members(settings.platform, memberships_url(engine, settings))
    learners = {m.user_id: m for m in membership.members if m.learner}
    teachers = {m.user_id for m in membership.members
                if m.status == "Active" and any(r in INSTRUCTOR_ROLES for r in m.roles)}
    result = Synced(membership.pages, len(membership.members))
    st = schema.students.c
    with writing(engine) as db:
        rows = db.execute(select(st.id, st.role, st.lti_user_id, st.sis_user_id, st.name, st.email)).all()
        if not learners and any(r.lti_user_id and r.role == "student" for r in rows):
            raise GraderError("the LMS lists no active student in the course: nothing was changed (an LMS that "
                              "answers an empty course by mistake would otherwise remove everyone).")
        by_lti = {r.lti_user_id: r for r in rows if r.lti_user_id}
        taken = {r.id for r in rows}
        for member in learners.values():
            row = by_lti.get(member.user_id)
            if row is None and member.sourcedid:
                row = next((r for r in rows if not r.lti_user_id and r.role == "student"
                            and member.sourcedid in (r.sis_user_id, r.id)), None)
                if row is not None:
                    result.linked.append(row.id)
            if row is not None and row.role != "student":
                result.skipped.append(f"{row.id} (listed as a student, and an instructor here)")
                continue
            if row is None:
                ident = next((i for i in (member.sourcedid, member.user_id, f"lti:{member.user_id}")
                              if i and len(i) <= 200 and i not in taken), None)
                if ident is None:
                    result.skipped.append(f"{member.user_id} (no free roster id)")
                    continue
                taken.add(ident)
                result.added.append(ident)
                if not dry_run:
                    db.execute(insert(schema.students).values(
                        id=ident, name=member.name or ident, email=member.email, sis_user_id=member.sourcedid,
                        sis_login_id="", section="", role="student", lti_user_id=member.user_id))
                continue
            changes = _changes(row, member)
            if changes and row.id not in result.linked:
                result.updated.append(row.id)
            if changes and not dry_run:
                db.execute(update(schema.students).where(st.id == row.id).values(**changes))
        for row in rows:
            listed = learners if row.role == "student" else teachers
            if row.lti_user_id and row.lti_user_id not in listed:
                result.removed.append(row.id)
                if not dry_run:
                    db.execute(update(schema.students).where(st.id == row.id).values(lti_user_id=""))
    if not dry_run:
        for student in result.removed:
            revoke(engine, student)  # their tokens, and every session they hold
    return result


def _changes(row: object, member: Member) -> dict[str, str]:
    """What the LMS says that the roster does not: its LTI id, and its name, email and SIS id where it gives them."""
    wanted = {"lti_user_id": member.user_id, "name": member.name, "email": member.email,
              "sis_user_id": member.sourcedid}
    return {k: v for k, v in wanted.items() if v and getattr(row, k) != v}
