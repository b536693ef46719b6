"""Each assignment's own column in the LMS: its AGS line item, found in the platform's line items
service (LTI AGS 2.0, the line item service), or made there.

The service is the container URL a launch's AGS endpoint claim names as `lineitems` (Canvas:
/api/lti/courses/ID/line_items; Moodle: /mod/lti/services.php/ID/lineitems?type_id=N). A GET with
`resource_id=ASSIGNMENT` and Accept application/vnd.ims.lis.v2.lineitemcontainer+json lists the line
items, a page at a time (`Link: <...>; rel="next"`, followed only within the container's origin);
the assignment's column is the one whose `resourceId` is the assignment's id, compared here whatever
the platform filtered. None: one is made, a POST of application/vnd.ims.lis.v2.lineitem+json with
its label, scoreMaximum, resourceId and the grader's tag (the lineitem scope). Two: the grader does
not guess which, and says so; nor does it after making one, when the list then shows two (another
publish made one at the same moment).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from grader.core.errors import GraderError
from grader.course.lms.links import next_page, origin

if TYPE_CHECKING:
    from grader.course.lms.platform import ServiceClient

LINEITEM_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"
READONLY_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem.readonly"
LINEITEM_TYPE = "application/vnd.ims.lis.v2.lineitem+json"
CONTAINER_TYPE = "application/vnd.ims.lis.v2.lineitemcontainer+json"
#: what marks the columns the grader made (a line item's `tag`, beyond its resourceId)
TAG = "autograd-grader"
#: a course's line items fit in a few pages of a few hundred KB; more is a broken or hostile
#: platform
PAGE_BYTES = 5_000_000
MAX_PAGES = 200


@dataclass(frozen=True, slots=True)
class Column:
    """What an assignment's column is: its resourceId (the assignment's id), label and points."""

    assignment: str
    label: str
    maximum: float


@dataclass(frozen=True, slots=True)
class Found:
    """An assignment's line item, and how it was had: "found" in the service, "made" there, or ""
    (none yet: a dry run makes none)."""

    url: str
    how: str


def find_or_make(
    client: ServiceClient, container: str, column: Column, *, make: bool = True
) -> Found:
    """The line item of `column` in the service at `container`: the one whose resourceId is its
    assignment."""
    found = _listed(client, container, column.assignment)
    if found:
        return Found(_one(found, container, column), "found")
    if not make:
        return Found("", "")
    status, body = client.post(container, json.dumps(_new(column)).encode(), LINEITEM_TYPE)
    if status not in (200, 201):
        raise GraderError(
            f"{container}: the platform did not make a line item for {column.assignment} "
            f"({status}: "
            f"{body[:200].strip() or 'no reason given'}); nothing was sent. The tool needs the AGS "
            f"line item scope in the LMS (docs/server.md, Sending the scores to the LMS)."
        )
    made = _item_url(container, _parsed(container, body.encode()))
    again = _listed(client, container, column.assignment)
    if len(again) > 1:  # another publish made one at the same moment: never guess between them
        _one(again, container, column)
    return Found(made, "made")


def _new(column: Column) -> dict[str, Any]:
    return {
        "label": column.label,
        "scoreMaximum": column.maximum if column.maximum > 0 else 1.0,
        "resourceId": column.assignment,
        "tag": TAG,
    }


def _one(items: list[dict[str, Any]], container: str, column: Column) -> str:
    if len(items) > 1:
        urls = ", ".join(str(item.get("id")) for item in items[:4])
        raise GraderError(
            f"{container}: {len(items)} LMS columns are {column.assignment}'s (resourceId "
            f"{column.assignment!r}: {urls}), and the grader does not guess which; nothing was "
            f"sent. Delete the extra ones in the LMS, or name the column in course.toml's "
            f"[lti.lineitems]."
        )
    return _item_url(container, items[0])


def _item_url(container: str, item: Any) -> str:
    """A line item's URL (its `id`), only on the service's own site: the platform's token goes with
    its scores."""
    url = item.get("id") if isinstance(item, dict) else None
    if (
        not isinstance(url, str)
        or urlsplit(url).scheme not in ("http", "https")
        or origin(url) != origin(container)
    ):
        raise GraderError(
            f"{container}: a line item's id is not a URL on the platform's site "
            f"({str(url)[:120]!r}); "
            f"nothing was sent."
        )
    return url


def _listed(client: ServiceClient, container: str, assignment: str) -> list[dict[str, Any]]:
    """Every line item of the service whose resourceId is `assignment`, on every page."""
    found: list[dict[str, Any]] = []
    seen: set[str] = set()
    page: str | None = with_query(container, resource_id=assignment)
    while page is not None:
        if page in seen or len(seen) >= MAX_PAGES:
            raise GraderError(
                f"{container}: the line items' pages loop or go past {MAX_PAGES}; nothing was sent."
            )
        seen.add(page)
        status, headers, body = client.get(page, CONTAINER_TYPE, PAGE_BYTES)
        if status != 200:
            raise GraderError(
                f"{page}: the platform answered {status} "
                f"({body[:200].decode('utf-8', 'replace')!r}); "
                f"nothing was sent. The tool needs the AGS line item scope in the LMS."
            )
        items = _parsed(page, body)
        if not isinstance(items, list):
            raise GraderError(f"{page}: the answer is not a list of line items; nothing was sent.")
        found += [
            item
            for item in items
            if isinstance(item, dict) and item.get("resourceId") == assignment
        ]
        page = next_page(headers.get("link", ""), page)
        if page is not None and origin(page) != origin(container):
            raise GraderError(
                f"{container}: a page's next link goes to another site ({origin(page)}); "
                f"not followed "
                f"(the platform's token would go with it), and nothing was sent."
            )
    return found


def _parsed(url: str, body: bytes) -> Any:
    try:
        return json.loads(body)
    except ValueError as exc:
        raise GraderError(f"{url}: the answer is not JSON ({exc}); nothing was sent.") from None


def with_query(url: str, **params: str) -> str:
    """`url` with `params` added to its query, what it had kept (Moodle's type_id)."""
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k not in params]
    return urlunsplit(parts._replace(query=urlencode([*query, *params.items()])))
