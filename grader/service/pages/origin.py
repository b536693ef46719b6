"""Cookie-authenticated requests that change something must come from the server's own
pages: a POST, PUT, PATCH or DELETE whose identity came from the session cookie is
refused (403) unless its Origin (else its Referer) names this server's host. The
access layer asks (grader.service.access), for every route a signed-in caller may use.

Why Origin and not a CSRF token: the pages run no script and hold no form whose token could be
checked, and every browser names the page a cross-site request came from in Origin (older
ones, or privacy settings, at least in Referer); a request that names neither is refused, so
the check fails closed. A bearer token is not sent by the browser on its own, so requests that
carry one (grade submit, scripts) are not asked. The host is compared, not the scheme: behind
a proxy that ends TLS the server sees http while the browser says https (the proxy must pass
the Host header on, as nginx's `proxy_set_header Host $host` does). An LTI launch is a POST
from the LMS's page by design, authenticated by its signed id_token, state and nonce, never
the cookie (which an LMS on the same site would send along): an LMS route is not asked.
"""

from __future__ import annotations

import urllib.parse

from starlette.requests import HTTPConnection

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def elsewhere(request: HTTPConnection) -> str | None:
    """Why this request does not come from a page of this server (its Origin,
    else its Referer, names another host, or nothing), or None where it does."""
    host = request.headers.get("host", "").lower()
    named = request.headers.get("origin") or request.headers.get("referer") or ""
    if not named or named == "null":
        return (
            "a page's request that changes something must say where it comes from (Origin or "
            "Referer)"
        )
    if urllib.parse.urlsplit(named).netloc.lower() != host or not host:
        return (
            "this request comes from another site's page; only this server's own pages may make it"
        )
    return None
