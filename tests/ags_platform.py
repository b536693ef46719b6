"""A small LTI 1.3 platform for the tests: an OAuth 2 token endpoint and an AGS line items service with its line
items, on 127.0.0.1; and for the launch, its OIDC side (the authorization endpoint, its key set) and a Names and
Roles service.

It checks what a real platform must, from the specifications: the token request is the
client-credentials grant with a JWT client assertion (1EdTech Security Framework 1.0, section 4.1:
grant_type, client_assertion_type, client_assertion, scope; the JWT signed RS256 by the registered key,
its kid in the header, iss and sub the client id, aud the token endpoint, exp, iat and a jti never seen
before), for scopes the registration grants (`granted`; another is invalid_scope, as Canvas answers); a Score
(LTI AGS 2.0, Score publish service) is POSTed to its line item's URL with /scores appended and its query kept,
as application/vnd.ims.lis.v1.score+json, with a bearer token granted the score scope, and holds a userId,
activityProgress and gradingProgress from the spec's lists, a timestamp with sub-second precision, and a
scoreMaximum above 0 with any scoreGiven. A score not newer than the last one for its user in its line item is
ignored, as the spec requires; each line item keeps its own (`gradebook`: the LMS's columns).

The line items service (AGS 2.0, line item service), as Canvas and Moodle keep it (`flavour`): a GET of the
container (Accept application/vnd.ims.lis.v2.lineitemcontainer+json, the lineitem or lineitem.readonly scope)
lists the tool's line items, filtered by resource_id, tag and resource_link_id; a POST
(application/vnd.ims.lis.v2.lineitem+json, the lineitem scope, label and scoreMaximum required) makes one, 201.
Canvas: /api/lti/courses/7/line_items, its items /api/lti/courses/7/line_items/N, pages of `page_size` linked
by `Link: <...>; rel="next"` (Api.paginate). Moodle: /mod/lti/services.php/7/lineitems?type_id=3 (type_id kept on
every URL), its items .../lineitems/N/lineitem?type_id=3, everything on one page unless the tool asks `limit`
(then `from`, and rel=“next” in typographic quotes, as mod/lti writes it). Line item 42 is a column the
instructor made by hand for the tool (no resourceId).

The launch, as Canvas and Moodle make it (Security Framework 5.1.1): /launch?user=U&link=L is the student's
click in the LMS (/course?user=U&link=L shows it in a frame of the LMS's course page, as an LMS embeds a tool),
a page that posts the login initiation (iss, login_hint, target_link_uri, lti_message_hint, client_id,
lti_deployment_id) to the tool; /authorize checks the authentication request (scope openid, response_type
id_token, response_mode form_post, prompt none, the registered client_id and redirect_uri, a state and a nonce)
and answers with a page that posts the id_token, signed RS256 by the platform's own key (published at /jwks with
its kid), and the state to the redirect_uri. /memberships is NRPS 2.0: a bearer token granted the membership
scope, pages of `page_size` members linked by `Link: <...>; rel="next"`. A link sits in an LMS context (a course,
a section: `link_contexts`, else context_id), whose launches carry that context and its own memberships URL, which
lists the users in it (a user's "contexts").

Deep Linking 2.0: a launch whose lti_message_hint is DEEP_LINK is an LtiDeepLinkingRequest (no resource link; its
deep_linking_settings, changed by `deep_linking`). /deep_link_return takes the tool's LtiDeepLinkingResponse as
the form field JWT, checks it as a platform must (4.2: signed RS256 by the tool's registered key under its kid,
iss the client id, aud the issuer, exp, iat, a nonce not seen before, the message type, version and deployment,
the data echoed, content items of an accepted type, one at most unless accept_multiple), and makes each
ltiResourceLink a link of its own, dl-1, dl-2..., launched with the item's custom parameters.
"""

from __future__ import annotations

import html
import json
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa

SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
LINEITEM_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"
READONLY_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem.readonly"
LINEITEM_TYPE = "application/vnd.ims.lis.v2.lineitem+json"
CONTAINER_TYPE = "application/vnd.ims.lis.v2.lineitemcontainer+json"
AGS_CLAIM = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS_SCOPE = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
SCOPES = frozenset({SCORE_SCOPE, LINEITEM_SCOPE, READONLY_SCOPE, NRPS_SCOPE})
NRPS_TYPE = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"
CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
SCORE_TYPE = "application/vnd.ims.lis.v1.score+json"
ACTIVITY = {"Initialized", "Started", "InProgress", "Submitted", "Completed"}
GRADING = {"FullyGraded", "Pending", "PendingManual", "Failed", "NotReady"}
DL_CLAIM = "https://purl.imsglobal.org/spec/lti-dl/claim/"
#: the lti_message_hint of the LMS's "add content" dialog
DEEP_LINK = "deep-link"
TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d+(Z|[+-]\d{2}:\d{2})")


@dataclass
class Platform:
    client_id: str
    key_id: str
    public_key: str
    base: str = ""
    #: "canvas" or "moodle": the paths and pages of its line items service
    flavour: str = "canvas"
    #: the scopes the tool's registration has (Canvas's developer key, Moodle's services settings)
    granted: set[str] = field(default_factory=lambda: set(SCOPES))
    #: line item number -> the line item (its id is made from the number when listed)
    items: dict[int, dict[str, Any]] = field(default_factory=lambda: {42: {"label": "Homework (by hand)",
                                                                            "scoreMaximum": 10.0}})
    #: line item number -> user -> the Score that applies (the LMS's gradebook)
    gradebook: dict[int, dict[str, dict[str, Any]]] = field(default_factory=dict)
    #: every line item made through the service, in order
    made: list[int] = field(default_factory=list)
    #: False: the line items service lists every item, whatever the filters say (a platform that ignores them)
    filters: bool = True
    #: every request, as (path, headers, body)
    requests: list[tuple[str, dict[str, str], bytes]] = field(default_factory=list)
    token_requests: list[dict[str, str]] = field(default_factory=list)
    assertions: list[dict[str, Any]] = field(default_factory=list)
    #: every score that applied, in order
    scores: list[dict[str, Any]] = field(default_factory=list)
    #: statuses to answer the next score POSTs with, before accepting (503, 429, 401...)
    fail_next: list[int] = field(default_factory=list)
    #: users whose scores are refused with 400
    refuse: set[str] = field(default_factory=set)
    problems: list[str] = field(default_factory=list)
    tokens: set[str] = field(default_factory=set)
    #: token -> the scopes granted with it
    scopes: dict[str, set[str]] = field(default_factory=dict)
    # the launch's side
    issuer: str = "https://lms.example.edu"
    deployment_id: str = "1:dep-7"
    context_id: str = "ctx-7"
    #: the name a browser reaches this platform by (cross-site from the tool), if not 127.0.0.1
    browser_host: str = ""
    #: the tool's login initiation URL and registered redirect URIs, once the tool is started
    login_url: str = ""
    redirect_uris: set[str] = field(default_factory=set)
    #: LMS user id (sub) -> name, email, roles, sourcedid, status: who may launch, and NRPS's members
    users: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: resource link id -> its custom parameters
    custom: dict[str, dict[str, str]] = field(default_factory=dict)
    #: resource link id -> the LMS context (a course, a section) it is in, where not context_id; a user's "contexts"
    #: (default: [context_id]) are the ones NRPS lists them in
    link_contexts: dict[str, str] = field(default_factory=dict)
    #: what the next id_token's claims are changed to (a key set to None is left out)
    override: dict[str, Any] = field(default_factory=dict)
    authorizations: list[dict[str, str]] = field(default_factory=list)
    #: every GET's path
    gets: list[str] = field(default_factory=list)
    jwks_fetches: int = 0
    page_size: int = 2
    #: a next link to put on the first page instead of the real one (a hostile platform's)
    next_link: str = ""
    signing_key: Any = None
    kid: str = "platform-key-1"
    #: changes to a deep linking launch's settings (None removes one)
    deep_linking: dict[str, Any] = field(default_factory=dict)
    #: the content items of each accepted deep linking response, and the links they made
    deep_links: list[list[dict[str, Any]]] = field(default_factory=list)
    response_nonces: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        if self.signing_key is None:
            self.signing_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)

    @property
    def token_url(self) -> str:
        return f"{self.base}/login/oauth2/token"

    @property
    def browser_base(self) -> str:
        return self.base.replace("127.0.0.1", self.browser_host) if self.browser_host else self.base

    @property
    def auth_url(self) -> str:
        return f"{self.browser_base}/authorize"

    @property
    def jwks_url(self) -> str:
        return f"{self.base}/jwks"

    @property
    def memberships_url(self) -> str:
        return f"{self.base}/memberships?course=7"

    def context_url(self, context: str) -> str:
        """A context's Names and Roles URL (context_id's is memberships_url)."""
        return self.memberships_url if context == self.context_id else \
            f"{self.base}/memberships?{urlencode({'context': context})}"

    def registration(self, key_file: str, **extra: object) -> str:
        """The TOML of this platform's registration, as the tool keeps it (lms.toml)."""
        values = {"client_id": self.client_id, "token_url": self.token_url, "key_file": key_file,
                  "key_id": self.key_id, "lineitems": self.lineitems, "issuer": self.issuer, "auth_url": self.auth_url,
                  "jwks_url": self.jwks_url, "deployment_ids": [self.deployment_id], "backoff": 0, **extra}
        return "".join(f"{k} = {json.dumps(v)}\n" for k, v in values.items())

    def id_token(self, user: str, link: str, nonce: str, target: str, /, key: Any = None, kid: str | None = None,
                 **changes: Any) -> str:
        """The id_token of `user`'s launch of `link`, as the platform signs it; `changes` (and `override`) alter
        its claims (None removes one), `key` and `kid` sign it otherwise."""
        person = self.users.get(user, {})
        context = self.link_contexts.get(link, self.context_id)
        now = int(time.time())
        claims: dict[str, Any] = {
            "iss": self.issuer, "aud": self.client_id, "sub": user, "iat": now, "exp": now + 300, "nonce": nonce,
            "name": person.get("name", ""), "email": person.get("email", ""),
            CLAIM + "message_type": "LtiResourceLinkRequest", CLAIM + "version": "1.3.0",
            CLAIM + "deployment_id": self.deployment_id, CLAIM + "target_link_uri": target,
            CLAIM + "resource_link": {"id": link, "title": f"Link {link}"},
            CLAIM + "context": {"id": context, "label": "AG101", "title": "Autograd 101"},
            CLAIM + "roles": person.get("roles", [LEARNER]), CLAIM + "custom": self.custom.get(link, {}),
            "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice": {
                "context_memberships_url": self.context_url(context), "service_versions": ["2.0"]},
            AGS_CLAIM: self.endpoint(link)}
        if link == DEEP_LINK:
            del claims[CLAIM + "resource_link"]
            claims[CLAIM + "message_type"] = "LtiDeepLinkingRequest"
            wanted = {"deep_link_return_url": f"{self.browser_base}/deep_link_return",
                      "accept_types": ["ltiResourceLink", "link"],
                      "accept_presentation_document_targets": ["iframe", "window"], "accept_multiple": True,
                      "data": "csrf-data-7", "title": "Add to Autograd 101", **self.deep_linking}
            claims[DL_CLAIM + "deep_linking_settings"] = {k: v for k, v in wanted.items() if v is not None}
        for name, value in {**self.override, **changes}.items():
            if value is None:
                claims.pop(name, None)
            else:
                claims[name] = value
        return jwt.encode(claims, key or self.signing_key, algorithm="RS256", headers={"kid": kid or self.kid})

    def endpoint(self, link: str) -> dict[str, Any]:
        """The AGS endpoint claim of a launch of `link`: the service, and the link's own line item where exactly
        one is attached to it (as Canvas and Moodle name it; two, and neither names one)."""
        attached = [n for n, item in self.items.items() if item.get("resourceLinkId") == link]
        claim: dict[str, Any] = {"scope": sorted(self.granted - {NRPS_SCOPE}), "lineitems": self.lineitems}
        if len(attached) == 1:
            claim["lineitem"] = self.item_url(attached[0])
        return claim

    def launch_page(self, user: str, link: str) -> str:
        """The LMS page a click on `link` opens: it posts the login initiation to the tool."""
        fields = {"iss": self.issuer, "login_hint": user, "target_link_uri": self.login_url.replace(
            "/lti/login", "/lti/launch"), "lti_message_hint": link, "client_id": self.client_id,
                  "lti_deployment_id": self.deployment_id}
        return _autopost(self.login_url, fields)

    @property
    def container_path(self) -> str:
        return "/api/lti/courses/7/line_items" if self.flavour == "canvas" else "/mod/lti/services.php/7/lineitems"

    @property
    def query(self) -> str:
        """What the service's URLs carry in their query (Moodle: the tool's type)."""
        return "" if self.flavour == "canvas" else "?type_id=3"

    @property
    def lineitems(self) -> str:
        """The line items service (the AGS endpoint claim's `lineitems`)."""
        return f"{self.base}{self.container_path}{self.query}"

    def item_path(self, number: int) -> str:
        return f"{self.container_path}/{number}" + ("" if self.flavour == "canvas" else "/lineitem")

    def item_url(self, number: int) -> str:
        return f"{self.base}{self.item_path(number)}{self.query}"

    @property
    def lineitem(self) -> str:
        """The column the instructor made by hand (42)."""
        return self.item_url(42)

    def listed(self, number: int) -> dict[str, Any]:
        """A line item as the service shows it."""
        return {"id": self.item_url(number), **self.items[number]}

    def column(self, resource_id: str) -> dict[str, dict[str, Any]]:
        """The scores of the one line item whose resourceId is `resource_id`, by user."""
        (number,) = [n for n, item in self.items.items() if item.get("resourceId") == resource_id]
        return self.gradebook.get(number, {})

    def make(self, item: dict[str, Any]) -> int:
        number = max(self.items) + 1
        self.items[number] = {k: v for k, v in item.items() if k in ("label", "scoreMaximum", "resourceId", "tag",
                                                                       "resourceLinkId")}
        self.made.append(number)
        return number


@contextmanager
def running(platform: Platform) -> Iterator[Platform]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(platform))
    platform.base = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield platform
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def _autopost(url: str, fields: dict[str, str]) -> str:
    inputs = "".join(f'<input type="hidden" name="{html.escape(k)}" value="{html.escape(v)}">'
                     for k, v in fields.items())
    return (f'<!DOCTYPE html><html><body><form method="post" action="{html.escape(url)}">{inputs}'
            '<button>Continue</button></form><script>document.forms[0].submit()</script></body></html>')


def form_fields(page: str) -> tuple[str, dict[str, str]]:
    """The action and hidden fields of an _autopost page (what a browser would post)."""
    action = html.unescape(re.search(r'action="([^"]*)"', page).group(1))  # type: ignore[union-attr]
    return action, {html.unescape(k): html.unescape(v)
                    for k, v in re.findall(r'name="([^"]*)" value="([^"]*)"', page)}


def _handler(platform: Platform) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            platform.gets.append(self.path)
            url = urlsplit(self.path)
            query = {k: v[0] for k, v in parse_qs(url.query).items()}
            if url.path == "/jwks":
                platform.jwks_fetches += 1
                public = jwt.algorithms.RSAAlgorithm.to_jwk(platform.signing_key.public_key(), as_dict=True)
                self._answer(200, {"keys": [{**public, "kid": platform.kid, "alg": "RS256", "use": "sig"}]})
            elif url.path == "/launch":
                self._page(platform.launch_page(query["user"], query["link"]))
            elif url.path == "/course":  # the LMS's course page, which shows the tool's launch in a frame
                launch = f"/launch?{urlencode({'user': query['user'], 'link': query['link']})}"
                self._page(f'<!DOCTYPE html><html><body><h1>Autograd 101</h1><iframe name="tool" '
                           f'src="{html.escape(launch)}" width="900" height="600"></iframe></body></html>')
            elif url.path == "/authorize":
                self._authorize(query)
            elif url.path == "/memberships":
                self._memberships(query)
            elif url.path == platform.container_path:
                self._list_items(url.query)
            else:
                self._answer(404, {"error": f"no such endpoint {self.path}"})

        def _authorize(self, query: dict[str, str]) -> None:
            platform.authorizations.append(query)
            expected = {"scope": "openid", "response_type": "id_token", "response_mode": "form_post",
                        "prompt": "none", "client_id": platform.client_id}
            problems = [f"{k} {query.get(k)!r}" for k, v in expected.items() if query.get(k) != v]
            if query.get("redirect_uri") not in platform.redirect_uris:
                problems.append(f"redirect_uri {query.get('redirect_uri')!r} is not registered")
            if not query.get("state") or not query.get("nonce"):
                problems.append("no state or nonce")
            if query.get("login_hint") not in platform.users:
                problems.append(f"login_hint {query.get('login_hint')!r} is nobody")
            if problems:
                platform.problems += problems
                self._answer(400, {"error": "invalid_request", "error_description": "; ".join(problems)})
                return
            token = platform.id_token(query["login_hint"], query.get("lti_message_hint", ""), query["nonce"],
                                      query["redirect_uri"])
            self._page(_autopost(query["redirect_uri"], {"id_token": token, "state": query["state"]}))

        def _memberships(self, query: dict[str, str]) -> None:
            authorization = self.headers.get("Authorization", "")
            if NRPS_SCOPE not in platform.scopes.get(authorization[7:], set()):
                self._answer(401, {"error": "invalid token"})
                return
            if self.headers.get("Accept") != NRPS_TYPE:
                platform.problems.append(f"Accept {self.headers.get('Accept')!r}")
            context = query.get("context", platform.context_id)
            members = [{"user_id": sub, "roles": p.get("roles", [LEARNER]), "status": p.get("status", "Active"),
                        "name": p.get("name", ""), "email": p.get("email", ""),
                        **({"lis_person_sourcedid": p["sourcedid"]} if p.get("sourcedid") else {})}
                       for sub, p in platform.users.items() if context in p.get("contexts", [platform.context_id])]
            page = int(query.get("page", "1"))
            chunk = members[(page - 1) * platform.page_size: page * platform.page_size]
            headers = {}
            if page * platform.page_size < len(members):
                where = {"course": "7"} if context == platform.context_id else {"context": context}
                following = platform.next_link if platform.next_link and page == 1 else \
                    f"/memberships?{urlencode({**where, 'page': page + 1})}"
                headers["Link"] = f'<{following}>; rel="next"'
            self._answer(200, {"id": platform.context_url(context), "context": {"id": context},
                               "members": chunk}, headers, NRPS_TYPE)

        def _page(self, text: str, status: int = 200) -> None:
            data = text.encode()
            self.send_response(status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            platform.requests.append((self.path, dict(self.headers), body))
            url = urlsplit(self.path)
            if url.path == "/login/oauth2/token":
                self._token(body)
            elif url.path == "/deep_link_return":
                self._deep_link_return(body)
            elif url.path == platform.container_path:
                self._make_item(url.query, body)
            elif url.path.endswith("/scores") and self._number(url.path[:-len("/scores")], url.query) is not None:
                self._score(self._number(url.path[:-len("/scores")], url.query) or 0, body)
            else:
                self._answer(404, {"error": f"no such endpoint {self.path}"})

        def _token(self, body: bytes) -> None:
            form = {k: v[0] for k, v in parse_qs(body.decode()).items()}
            platform.token_requests.append(form)
            problems = []
            if self.headers.get("Content-Type") != "application/x-www-form-urlencoded":
                problems.append("the token request is not form-encoded")
            if form.get("grant_type") != "client_credentials":
                problems.append(f"grant_type {form.get('grant_type')!r}")
            if form.get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer":
                problems.append(f"client_assertion_type {form.get('client_assertion_type')!r}")
            asked = set(form.get("scope", "").split())
            if not asked or not asked <= SCOPES:
                problems.append(f"scope {form.get('scope')!r}")
            elif not asked <= platform.granted:  # a scope the registration lacks: refused, as Canvas does
                self._answer(400, {"error": "invalid_scope", "error_description": f"not granted: "
                                   f"{' '.join(sorted(asked - platform.granted))}"})
                return
            try:
                header = jwt.get_unverified_header(form.get("client_assertion", ""))
                claims = jwt.decode(form.get("client_assertion", ""), platform.public_key, algorithms=["RS256"],
                                    audience=platform.token_url, issuer=platform.client_id,
                                    options={"require": ["iss", "sub", "aud", "exp", "iat", "jti"]})
                if header.get("kid") != platform.key_id:
                    problems.append(f"kid {header.get('kid')!r}")
                if claims["sub"] != platform.client_id:
                    problems.append(f"sub {claims['sub']!r}")
                if any(a["jti"] == claims["jti"] for a in platform.assertions):
                    problems.append("a jti used before")
                platform.assertions.append(claims)
            except jwt.PyJWTError as exc:
                problems.append(f"the assertion: {exc}")
            if problems:
                platform.problems += problems
                self._answer(400, {"error": "invalid_client", "error_description": "; ".join(problems)})
                return
            token = f"token-{len(platform.tokens) + 1}"
            platform.tokens.add(token)
            platform.scopes[token] = asked
            self._answer(200, {"access_token": token, "token_type": "bearer", "expires_in": 3600,
                               "scope": " ".join(sorted(asked))})

        def _deep_link_return(self, body: bytes) -> None:
            form = {k: v[0] for k, v in parse_qs(body.decode()).items()}
            problems = deep_link_problems(platform, form.get("JWT", ""))
            if problems:
                platform.problems += problems
                self._page("<h1>Refused</h1>" + "".join(f"<p>{html.escape(p)}</p>" for p in problems), 400)
                return
            claims = jwt.decode(form["JWT"], options={"verify_signature": False})
            items = claims[DL_CLAIM + "content_items"]
            made = sum(len(earlier) for earlier in platform.deep_links)
            for number, item in enumerate(items, made + 1):
                if item["type"] == "ltiResourceLink":
                    item["link"] = f"dl-{number}"
                    platform.custom[item["link"]] = dict(item.get("custom", {}))
                    if isinstance(item.get("lineItem"), dict):  # the link's own gradebook column (3.4.2)
                        platform.make({**item["lineItem"], "resourceLinkId": item["link"]})
            platform.deep_links.append(items)
            self._page("<h1>Added to the course</h1>" + "".join(
                f"<p class=added>{html.escape(i['title'])}: {i.get('link', '')}</p>" for i in items)
                + (f"<p class=msg>{html.escape(claims.get(DL_CLAIM + 'msg', ''))}</p>"))

        def _number(self, path: str, query: str) -> int | None:
            """The line item a path names, with the query its URLs carry (Moodle's type_id), or None."""
            for number in platform.items:
                if path == platform.item_path(number) and (f"?{query}" if query else "") == platform.query:
                    return number
            return None

        def _granted(self, *scopes: str) -> bool:
            authorization = self.headers.get("Authorization", "")
            held = platform.scopes.get(authorization[7:], set()) if authorization.startswith("Bearer ") else set()
            return any(scope in held for scope in scopes)

        def _list_items(self, query: str) -> None:
            asked = {k: v[0] for k, v in parse_qs(query).items()}
            if not self._granted(LINEITEM_SCOPE, READONLY_SCOPE):
                self._answer(401, {"error": "invalid token"})
                return
            if platform.flavour == "moodle" and asked.get("type_id") != "3":
                self._answer(400, {"error": "No context or unsupported content type"})
                return
            if self.headers.get("Accept") != CONTAINER_TYPE:
                platform.problems.append(f"Accept {self.headers.get('Accept')!r} for the line items")
            keys = {"resource_id": "resourceId", "tag": "tag", "resource_link_id": "resourceLinkId"}
            listed = [platform.listed(n) for n in sorted(platform.items) if not platform.filters or
                      all(platform.items[n].get(field) == asked[key] for key, field in keys.items() if key in asked)]
            size, start = self._paging(asked, len(listed))
            chunk = listed[start:start + size]
            headers = {}
            if start + size < len(listed):
                following = dict(asked, **({"page": str(start // size + 2)} if platform.flavour == "canvas"
                                           else {"from": str(start + size)}))
                target = platform.next_link if platform.next_link and start == 0 else \
                    f"{platform.base}{platform.container_path}?{urlencode(following)}"
                link = f"<{target}>; rel="
                # Moodle writes rel=“next”, in UTF-8 (the header's bytes: latin-1 is what http.server encodes)
                headers["Link"] = link + ('"next"' if platform.flavour == "canvas" else
                                          "\u201cnext\u201d".encode().decode("latin-1"))
            self._answer(200, chunk, headers, CONTAINER_TYPE)

        def _paging(self, asked: dict[str, str], count: int) -> tuple[int, int]:
            """(page size, first index): Canvas pages always (its per-page cap), Moodle only when asked `limit`."""
            if platform.flavour == "canvas":
                size = min(int(asked.get("limit", platform.page_size)), platform.page_size)
                return size, (int(asked.get("page", "1")) - 1) * size
            limit = int(asked.get("limit", "0"))
            return (limit, int(asked.get("from", "0"))) if limit > 0 else (max(count, 1), 0)

        def _make_item(self, query: str, body: bytes) -> None:
            if not self._granted(LINEITEM_SCOPE):
                self._answer(401, {"error": "the token lacks the lineitem scope"})
                return
            if platform.flavour == "moodle" and query != "type_id=3":
                self._answer(400, {"error": "No context or unsupported content type"})
                return
            if self.headers.get("Content-Type") != LINEITEM_TYPE:
                platform.problems.append(f"Content-Type {self.headers.get('Content-Type')!r} for a line item")
            item = json.loads(body)
            if not isinstance(item, dict) or not isinstance(item.get("label"), str) or \
                    not isinstance(item.get("scoreMaximum"), int | float):
                self._answer(400, {"error": "No label or Score Maximum"})
                return
            number = platform.make(item)
            self._answer(201, platform.listed(number), media=LINEITEM_TYPE)

        def _score(self, number: int, body: bytes) -> None:
            if not self._granted(SCORE_SCOPE):
                self._answer(401, {"error": "invalid token"})
                return
            authorization = self.headers.get("Authorization", "")
            if platform.fail_next:
                status = platform.fail_next.pop(0)
                if status == 401:
                    platform.tokens.discard(authorization[7:])  # as if it expired
                    platform.scopes.pop(authorization[7:], None)
                self._answer(status, {"error": "try again"}, {"Retry-After": "0"} if status == 429 else {})
                return
            if self.headers.get("Content-Type") != SCORE_TYPE:
                platform.problems.append(f"Content-Type {self.headers.get('Content-Type')!r}")
                self._answer(415, {"error": "not a Score"})
                return
            score = json.loads(body)
            problems = _score_problems(score)
            if problems:
                platform.problems += problems
                self._answer(400, {"error": "; ".join(problems)})
                return
            if score["userId"] in platform.refuse:
                self._answer(400, {"error": "User not found in course or is not a student"})
                return
            column = platform.gradebook.setdefault(number, {})
            if score["timestamp"] > column.get(score["userId"], {}).get("timestamp", ""):  # only newer apply
                column[score["userId"]] = score
                platform.scores.append(score)
            self._answer(200, {"resultUrl": f"{platform.item_url(number)}/results/{score['userId']}"})

        def _answer(self, status: int, payload: dict[str, Any] | list[Any], headers: dict[str, str] | None = None,
                    media: str = "application/json") -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", media)
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

    return Handler


def deep_link_problems(platform: Platform, token: str) -> list[str]:
    """What a platform finds wrong with a tool's LtiDeepLinkingResponse (Deep Linking 2.0, 4.2)."""
    try:
        header = jwt.get_unverified_header(token)
        claims = jwt.decode(token, platform.public_key, algorithms=["RS256"], audience=platform.issuer,
                            issuer=platform.client_id, options={"require": ["iss", "aud", "exp", "iat", "nonce"]})
    except jwt.PyJWTError as exc:
        return [f"the deep linking response: {exc}"]
    problems = [] if header.get("kid") == platform.key_id else [f"kid {header.get('kid')!r}"]
    if claims["nonce"] in platform.response_nonces:
        problems.append("a nonce used before")
    platform.response_nonces.add(claims["nonce"])
    expected = {CLAIM + "message_type": "LtiDeepLinkingResponse", CLAIM + "version": "1.3.0",
                CLAIM + "deployment_id": platform.deployment_id}
    problems += [f"{k.rsplit('/', 1)[-1]} {claims.get(k)!r}" for k, v in expected.items() if claims.get(k) != v]
    sent = {"data": "csrf-data-7", "accept_multiple": True, **platform.deep_linking}
    if claims.get(DL_CLAIM + "data") != sent["data"]:
        problems.append(f"data {claims.get(DL_CLAIM + 'data')!r}, not the request's {sent['data']!r}")
    items = claims.get(DL_CLAIM + "content_items", [])
    if not isinstance(items, list) or (len(items) > 1 and not sent["accept_multiple"]):
        problems.append("content_items: a list, of one item at most without accept_multiple")
        return problems
    for item in items:
        if not isinstance(item, dict) or item.get("type") not in ("ltiResourceLink", "link"):
            problems.append(f"content item {item!r}")
        elif not isinstance(item.get("title", ""), str) or not isinstance(item.get("custom", {}), dict) or \
                not all(isinstance(v, str) for v in item.get("custom", {}).values()):
            problems.append(f"content item {item!r}: title and custom values are strings")
    return problems


def _score_problems(score: Any) -> list[str]:
    if not isinstance(score, dict):
        return ["the Score is not an object"]
    problems = []
    if not isinstance(score.get("userId"), str) or not score["userId"]:
        problems.append("userId missing")
    if score.get("activityProgress") not in ACTIVITY:
        problems.append(f"activityProgress {score.get('activityProgress')!r}")
    if score.get("gradingProgress") not in GRADING:
        problems.append(f"gradingProgress {score.get('gradingProgress')!r}")
    if not isinstance(score.get("timestamp"), str) or not TIMESTAMP.fullmatch(score["timestamp"]):
        problems.append(f"timestamp {score.get('timestamp')!r} (ISO 8601 with sub-second precision)")
    if "scoreGiven" in score:
        if not isinstance(score["scoreGiven"], int | float) or score["scoreGiven"] < 0:
            problems.append("ScoreGiven must be greater than or equal to 0")
        if not isinstance(score.get("scoreMaximum"), int | float) or score["scoreMaximum"] <= 0:
            problems.append("ScoreMaximum must be present and greater than 0")
    return problems
