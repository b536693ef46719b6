"""The pages of a platform's list (NRPS memberships, AGS line items): the `Link: <...>; rel="next"`
header (RFC 8288), and the origin a page may be fetched from.

A bearer token goes with every page, so a next link is followed only within the origin the list
began at. Moodle writes its rel values in typographic quotes (rel=“next”), so those are read as
quotes too.
"""

from __future__ import annotations

import re
from urllib.parse import urljoin, urlsplit

_LINK = re.compile(r"<([^>]*)>((?:\s*;\s*[^;,]*)*)")
_WORD = re.compile(r"[a-z0-9.-]+")


def next_page(header: str, base: str) -> str | None:
    """The rel="next" target of a Link header, resolved against the page it came with."""
    for target, params in _LINK.findall(header):
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key.strip().lower() == "rel" and "next" in _WORD.findall(value.lower()):
                return urljoin(base, str(target).strip())
    return None


def origin(url: str) -> tuple[str, str]:
    """Scheme and host (with port) of `url`: where a token may go."""
    parts = urlsplit(url)
    return parts.scheme, parts.netloc.lower()
