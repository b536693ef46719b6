"""course.toml's [lti] table: the LMS registration a course takes launches
from, which LMS course(s) it is, and which LMS link opens which assignment.

    [lti]
    # the registration, the file grade publish lti reads (relative to course.toml)
    platform = "lms.toml"
    # the LMS course whose launches come here (or a list: courses, sections); a launch shows its own
    context_id = "4dde05e8ca19"
    # how grade roster sync links an LMS member to a roster row: by their LMS user id (the roster's
    # lti_user_id), or "sis_user_id" (their SIS id, against the roster's sis_user_id column); never
    # one kind against another
    link_by = "lti_user_id"
    # the custom parameter that names the assignment (default: assignment)
    custom = "assignment"
    # this server's address as registered in the LMS (default: as asked)
    # url = "https://grader.example.edu"
    # the LMS's own pages, which frame a launch (default: the registration's issuer and auth_url;
    # Canvas's issuer is not the school's site)
    # frame_ancestors = ["https://school.instructure.com"]

    [lti.links]                  # an LMS link's resource link id -> the assignment it opens
    "f6bc7b1c-5e0d-4d1f-9a7e-2a1b3c4d5e6f" = "hw1"

    [lti.lineitems]              # an assignment -> its LMS column (line item), named by hand
    hw1 = "https://canvas.example.edu/api/lti/courses/7/line_items/42"
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from grader.core.errors import GraderError
from grader.course.lms.platform import LAUNCH_KEYS, Platform, read_platform


@dataclass(frozen=True, slots=True, kw_only=True)
class LtiSettings:
    platform: Platform
    registration: Path
    #: the LMS contexts (courses) whose launches this course
    #: accepts; none: every launch says how to set it
    context_ids: tuple[str, ...] = ()
    #: resource link id -> assignment id
    links: dict[str, str] = field(default_factory=dict)
    #: assignment id -> the line item (LMS column) named for it by hand; one each, never shared
    lineitems: dict[str, str] = field(default_factory=dict)
    custom: str = "assignment"
    #: this server's public address (scheme and host), as the LMS knows it; "" takes the request's
    url: str = ""
    #: the origins whose pages may frame a launch's answers
    #: ([lti] frame_ancestors); none: the registration's
    frame_ancestors: tuple[str, ...] = ()
    #: the one id kind grade roster sync links an LMS member to a roster row by (LINK_KINDS)
    link_by: str = "lti_user_id"

    def deployments(self) -> dict[str, str]:
        """The store's id of each accepted deployment -> its deployment id."""
        return {
            platform_id(self.platform.issuer, self.platform.client_id, d): d
            for d in self.platform.deployment_ids
        }


#: how an LMS member is linked to a roster row: the LMS user id against the roster's lti_user_id,
#: or the SIS id the LMS gives (lis_person_sourcedid) against the roster's sis_user_id
LINK_KINDS = ("lti_user_id", "sis_user_id")


def frame_origins(settings: LtiSettings) -> tuple[str, ...]:
    """The origins whose pages may frame the LMS's routes: [lti] frame_ancestors,
    else the registration's issuer and authorization endpoint (where Moodle's
    pages are; Canvas's school site is named in frame_ancestors)."""
    named = settings.frame_ancestors or (settings.platform.issuer, settings.platform.auth_url)
    found = []
    for url in named:
        shown = origin_of(url)
        if shown and shown not in found:
            found.append(shown)
    return tuple(found)


def origin_of(url: str) -> str:
    """An http(s) URL's origin as a CSP source (scheme://host[:port]); ""
    for anything else, so that nothing but an origin reaches a header."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not _ORIGIN.fullmatch(parts.netloc):
        return ""
    return f"{parts.scheme}://{parts.netloc.lower()}"


_ORIGIN = re.compile(r"[A-Za-z0-9.-]+(:[0-9]{1,5})?|\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?")


def platform_id(issuer: str, client_id: str, deployment: str) -> str:
    return hashlib.sha256(f"{issuer}\n{client_id}\n{deployment}".encode()).hexdigest()


def read_lti(path: Path, table: Any, assignments: set[str]) -> LtiSettings | None:
    """The [lti] table of course.toml at `path`, checked; None where the course has none."""
    if table is None:
        return None
    registration, platform = _registration(path, table)
    contexts = _contexts(path, table.get("context_id", []))
    links = _links(path, table.get("links", {}), assignments)
    lineitems = _lineitems(path, table.get("lineitems", {}), assignments)
    custom = table.get("custom", "assignment")
    if not isinstance(custom, str) or not custom:
        raise GraderError(
            f"{path}: [lti] custom is the name of a custom parameter, like \"assignment\"."
        )
    return LtiSettings(
        platform=platform,
        registration=registration,
        context_ids=contexts,
        links=links,
        lineitems=lineitems,
        custom=custom,
        url=_url(path, table.get("url", "")).rstrip("/"),
        frame_ancestors=_framing(path, table.get("frame_ancestors", [])),
        link_by=_link_by(path, table.get("link_by", "lti_user_id")),
    )


def _registration(path: Path, table: Any) -> tuple[Path, Platform]:
    """The LMS registration [lti] names, read (issuer, auth_url, jwks_url, deployment_ids)."""
    if (
        not isinstance(table, dict)
        or not isinstance(table.get("platform"), str)
        or not table["platform"]
    ):
        raise GraderError(
            f"{path}: [lti] needs platform = \"lms.toml\", the LMS registration (issuer, "
            "auth_url, jwks_url and deployment_ids: docs/server.md, Students from the LMS)."
        )
    registration = (path.parent / table["platform"]).resolve()
    try:
        platform = read_platform(registration, need=LAUNCH_KEYS)
    except GraderError as exc:
        raise GraderError(f"{path}: [lti] platform: {exc}") from None
    _check_key(path, platform)
    return registration, platform


def _contexts(path: Path, contexts: Any) -> tuple[str, ...]:
    contexts = [contexts] if isinstance(contexts, str) else contexts
    if not isinstance(contexts, list) or not all(isinstance(c, str) and c for c in contexts):
        raise GraderError(
            f"{path}: [lti] context_id is the LMS course's context id (a launch shows it), or a "
            "list."
        )
    return tuple(contexts)


def _links(path: Path, links: Any, assignments: set[str]) -> dict[str, str]:
    if not isinstance(links, dict) or not all(isinstance(v, str) for v in links.values()):
        raise GraderError(
            f"{path}: [lti.links] maps an LMS link's resource link id to an assignment id."
        )
    unknown = sorted(v for v in links.values() if v not in assignments)
    if unknown:
        raise GraderError(
            f"{path}: [lti.links] names {', '.join(map(repr, unknown))}, not an assignment of "
            f"this course ({', '.join(sorted(assignments))})."
        )
    return {str(k): v for k, v in links.items()}


def _url(path: Path, url: Any) -> str:
    """This server's address as registered in the LMS: scheme and host, no path."""
    if isinstance(url, str):
        parts = urlsplit(url)
        web = parts.scheme in ("http", "https") and parts.netloc
        if not url or (web and parts.path in ("", "/")):
            return url
    raise GraderError(
        f"{path}: [lti] url is this server's address, like \"https://grader.example.edu\" (no "
        f"path), not {url!r}."
    )


def _framing(path: Path, framing: Any) -> tuple[str, ...]:
    if not isinstance(framing, list) or not all(
        isinstance(f, str) and origin_of(f) for f in framing
    ):
        raise GraderError(
            f"{path}: [lti] frame_ancestors lists the origins of the LMS's pages that frame a "
            "launch, like [\"https://school.instructure.com\"]."
        )
    return tuple(framing)


def _link_by(path: Path, link_by: Any) -> str:
    if link_by not in LINK_KINDS:
        raise GraderError(
            f"{path}: [lti] link_by is how an LMS member is linked to a roster row: "
            "\"lti_user_id\" (their LMS user id) or \"sis_user_id\" (their SIS id), not "
            f"{link_by!r}."
        )
    return str(link_by)


def _lineitems(path: Path, table: Any, assignments: set[str]) -> dict[str, str]:
    """[lti.lineitems]: each assignment's LMS column, named by hand; an assignment of the course
    each, a line item's URL each, and never one line item for two (the scores of one would overwrite
    the other's)."""
    if not isinstance(table, dict) or not all(isinstance(v, str) for v in table.values()):
        raise GraderError(f"{path}: [lti.lineitems] maps an assignment id to its line item's URL.")
    unknown = sorted(k for k in table if k not in assignments)
    if unknown:
        raise GraderError(
            f"{path}: [lti.lineitems] names {', '.join(map(repr, unknown))}, not an "
            f"assignment of this course ({', '.join(sorted(assignments))})."
        )
    for assignment, url in table.items():
        if urlsplit(url).scheme not in ("http", "https") or not urlsplit(url).netloc:
            raise GraderError(
                f"{path}: [lti.lineitems] {assignment} = {url!r} is not a line item's URL."
            )
    holders: dict[str, list[str]] = {}
    for assignment, url in table.items():
        holders.setdefault(url, []).append(assignment)
    shared = [
        f"{' and '.join(sorted(names))} ({url})" for url, names in holders.items() if len(names) > 1
    ]
    if shared:
        raise GraderError(
            f"{path}: [lti.lineitems] gives {'; '.join(shared)} one LMS column, and one "
            "assignment's scores would overwrite the other's: give each assignment its own line "
            "item."
        )
    return {str(k): v for k, v in table.items()}


def _check_key(path: Path, platform: Platform) -> None:
    """The tool's key must be RSA: the launch publishes
    its public half, and NRPS's token is signed with it."""
    from cryptography.hazmat.primitives.asymmetric.rsa import RSAPrivateKey
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    try:
        key = load_pem_private_key(platform.private_key.encode(), password=None)
    except (ValueError, TypeError) as exc:
        raise GraderError(
            f"{path}: [lti] platform: key_file is not an unencrypted PEM private key ({exc})."
        ) from None
    if not isinstance(key, RSAPrivateKey):
        raise GraderError(
            f"{path}: [lti] platform: key_file must hold an RSA private key (RS256), not "
            f"{type(key).__name__}."
        )
