"""A course's members from the platform's LTI Names and Role Provisioning
Service (NRPS 2.0): every page of the context's membership, as plain records.

The token is the client-credentials grant of grader.course.lms.platform, for
NRPS's read-only scope. Pages follow the `Link: <...>; rel="next"` header, and
only within the membership URL's own origin: the bearer token is never sent to
another host, whatever a page says. Each page is bounded, and so is their number.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from grader.core.errors import GraderError
from grader.course.lms.links import next_page, origin
from grader.course.lms.platform import Platform, ServiceClient

MEMBERSHIP_SCOPE = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
MEMBERSHIP_TYPE = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
#: a course of 10,000 is a few MB a page at most; a platform sending more is broken or hostile
PAGE_BYTES = 20_000_000
MAX_PAGES = 1000


@dataclass(frozen=True, slots=True, kw_only=True)
class Member:
    """One member of the context, as NRPS lists them (`user_id` is the launch's `sub`)."""

    user_id: str
    name: str
    email: str
    #: the institution's id (SIS), where the platform shares it
    sourcedid: str
    roles: tuple[str, ...]
    #: Active, Inactive or Deleted (Active where the platform says nothing)
    status: str

    @property
    def learner(self) -> bool:
        """An active student: NRPS's Learner context
        role (sub-roles such as Learner#... count too)."""
        return self.status == "Active" and any(
            r == LEARNER or r.startswith(LEARNER + "#") or r == "Learner" for r in self.roles
        )


@dataclass(frozen=True, slots=True)
class Membership:
    context_id: str
    members: tuple[Member, ...]
    pages: int


def fetch_members(platform: Platform, url: str) -> Membership:
    """Every member on every page of `url`, the context's memberships URL."""
    start = origin(url)
    client = ServiceClient(platform, MEMBERSHIP_SCOPE)
    members: list[Member] = []
    seen: set[str] = set()
    context = ""
    page: str | None = url
    while page is not None:
        if page in seen or len(seen) >= MAX_PAGES:
            raise GraderError(
                f"{url}: the membership's pages loop or go past {MAX_PAGES}; nothing was changed."
            )
        seen.add(page)
        status, headers, body = client.get(page, MEMBERSHIP_TYPE, PAGE_BYTES)
        if status != 200:
            raise GraderError(
                f"{page}: the platform answered {status} "
                f"({body[:200].decode('utf-8', 'replace')!r}); nothing was changed. Check that the "
                "tool has the Names and Roles service in the LMS."
            )
        data = _json(page, body)
        if not context and isinstance(data.get("context"), dict):
            context = str(data["context"].get("id", ""))
        listed = data.get("members")
        if not isinstance(listed, list):
            raise GraderError(f"{page}: the answer has no members list; nothing was changed.")
        members += [_member(page, m) for m in listed]
        page = next_page(headers.get("link", ""), page)
        if page is not None and origin(page) != start:
            raise GraderError(
                f"{url}: a page's next link goes to another site ({origin(page)}); "
                "not followed (the platform's token would go with it), and nothing "
                "was changed."
            )
    return Membership(context, tuple(members), len(seen))


def _json(page: str, body: bytes) -> dict[str, Any]:
    try:
        data = json.loads(body)
    except ValueError as exc:
        raise GraderError(f"{page}: the answer is not JSON ({exc}); nothing was changed.") from None
    if not isinstance(data, dict):
        raise GraderError(f"{page}: the answer is not a membership container; nothing was changed.")
    return data


def _member(page: str, raw: Any) -> Member:
    if (
        not isinstance(raw, dict)
        or not isinstance(raw.get("user_id"), str)
        or not raw["user_id"].strip()
    ):
        raise GraderError(
            f"{page}: a member without a user_id ({str(raw)[:120]}); nothing was changed."
        )
    roles = raw.get("roles", [])

    def text(key: str, cap: int = 200) -> str:
        value = raw.get(key, "")
        return " ".join(value.split())[:cap] if isinstance(value, str) else ""

    name = text("name") or " ".join(p for p in (text("given_name"), text("family_name")) if p)
    return Member(
        user_id=raw["user_id"].strip()[:255],
        name=name,
        email=text("email"),
        sourcedid=text("lis_person_sourcedid"),
        roles=tuple(r for r in roles if isinstance(r, str)) if isinstance(roles, list) else (),
        status=text("status") or "Active",
    )
