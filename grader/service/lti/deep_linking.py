"""LTI Deep Linking 2.0: an instructor adds an assignment
to the LMS course from the LMS's own "add content" dialog.

The platform launches the tool with an LtiDeepLinkingRequest (through the same OIDC login and
checks as any launch, grader.service.lti.lti); the tool's answer is a page of the course's
assignments, each with a button that posts an LtiDeepLinkingResponse to the platform's
deep_link_return_url: a JWT signed with the tool's key (the one whose public half /lti/jwks
publishes). Each assignment becomes an LTI resource link whose custom parameter ([lti] custom,
"assignment" by default) names it, so that its launches open it with no [lti.links] entry to write,
and with a line item of its own (its `lineItem`): the assignment's column in the LMS's gradebook.

Why each response is signed before the instructor picks: the pages run no script (their
CSP), so a pick posted to this server could not be sent on to the LMS without a second
click; signed at once, one click posts it straight to the LMS. The page goes only to
the browser whose launch passed every check, a response names assignments and never a
student, and only a launch whose roles say its user teaches this LMS course gets one.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from grader.course.lms.lineitems import TAG
from grader.service.config import Course
from grader.service.lti.lti_config import LtiSettings
from grader.service.lti.lti_token import CLAIM, LaunchRefused, bad_token, short

REQUEST = "LtiDeepLinkingRequest"
DL_CLAIM = "https://purl.imsglobal.org/spec/lti-dl/claim/"
#: how long a picker's responses are good for: time to read the list
PICK_SECONDS = 900


@dataclass(frozen=True, slots=True)
class Choice:
    """One button of the picker: what it adds, and the signed response it posts."""

    label: str
    jwt: str
    #: what it grades, beside the button
    note: str = ""


@dataclass(frozen=True, slots=True)
class Picker:
    """A deep linking launch that passed every check: where the responses go, and one per choice
    (each assignment; all of them where the platform takes several links; none, to cancel)."""

    return_url: str
    title: str
    choices: tuple[Choice, ...]
    cancel: str


def pick(
    course: Course,
    settings: LtiSettings,
    claims: Mapping[str, Any],
    instructor: bool,
    tool_url: str,
) -> Picker:
    """The picker for a deep linking launch whose id_token has passed every check of a launch."""
    if not instructor:
        raise LaunchRefused(
            403,
            "Only an instructor adds assignments",
            "The LMS asked for a link to add to the course, "
            "and its roles for you in this course are not an instructor's.",
        )
    wanted = claims.get(DL_CLAIM + "deep_linking_settings")
    if not isinstance(wanted, dict):
        raise bad_token("the deep linking launch has no deep_linking_settings")
    return_url = wanted.get("deep_link_return_url")
    if (
        not isinstance(return_url, str)
        or urlsplit(return_url).scheme not in ("http", "https")
        or not urlsplit(return_url).netloc
    ):
        raise bad_token("the deep linking launch's deep_link_return_url is not an http(s) address")
    accepted = wanted.get("accept_types")
    if not isinstance(accepted, list) or "ltiResourceLink" not in accepted:
        raise LaunchRefused(
            400,
            "Nothing to add here",
            "The LMS asked for content this tool does not make (it makes "
            f"LTI resource links, not {short(', '.join(map(str, accepted or [])))}).",
        )
    data = wanted.get("data")
    echo = (
        {DL_CLAIM + "data": data} if isinstance(data, str) else {}
    )  # as the platform sent it (4.2.1)
    deployment = str(claims[CLAIM + "deployment_id"])

    def signed(assignments: Sequence[str]) -> str:
        items = [_item(course, settings, a, tool_url) for a in assignments]
        return _signed(settings, deployment, items, echo)

    names = list(course.assignments)
    choices = [
        Choice(name, signed([name]), ", ".join(course.assignments[name].exercise_ids))
        for name in names
    ]
    if wanted.get("accept_multiple") is not False and len(names) > 1:
        choices.append(Choice("every assignment", signed(names)))
    title = wanted.get("title")
    return Picker(return_url, title if isinstance(title, str) else "", tuple(choices), signed([]))


def _item(course: Course, settings: LtiSettings, assignment: str, tool_url: str) -> dict[str, Any]:
    """The link of `assignment`, with its own gradebook column: the platform makes the line item
    (Deep Linking 2.0, 3.4.2: resourceId the assignment, as the line items service finds it) and
    names it in the launches of
    the link, where the server takes it from (grader.service.lti.columns)."""
    rules = course.assignments[assignment]
    exercises, points = rules.exercise_ids, rules.points
    return {
        "type": "ltiResourceLink",
        "title": assignment,
        "url": f"{tool_url}/lti/launch",
        "text": f"{course.name}: {assignment} ({', '.join(exercises)})"[:1000],
        "custom": {settings.custom: assignment},
        "lineItem": {
            "label": assignment,
            "scoreMaximum": points if points > 0 else 1.0,
            "resourceId": assignment,
            "tag": TAG,
        },
    }


def _signed(
    settings: LtiSettings, deployment: str, items: list[dict[str, Any]], echo: Mapping[str, str]
) -> str:
    """The LtiDeepLinkingResponse (Deep Linking 2.0, 4.2): issued by the tool (its client
    id) to the platform, good while the picker is (the instructor reads it first)."""
    import jwt

    platform = settings.platform
    now = int(time.time())
    claims: dict[str, Any] = {
        "iss": platform.client_id,
        "aud": platform.issuer,
        "iat": now,
        "exp": now + PICK_SECONDS,
        "nonce": secrets.token_urlsafe(24),
        CLAIM + "message_type": "LtiDeepLinkingResponse",
        CLAIM + "version": "1.3.0",
        CLAIM + "deployment_id": deployment,
        DL_CLAIM + "content_items": items,
        DL_CLAIM + "msg": f"Added {', '.join(i['title'] for i in items)}."
        if items
        else "Nothing was added.",
        **echo,
    }
    return jwt.encode(
        claims, platform.private_key, algorithm="RS256", headers={"kid": platform.key_id}
    )
