"""The LTI launch's HTTP side (grader.service.lti.lti checks it): /lti/login (the
platform's login initiation, GET or POST), /lti/launch (the id_token's form_post),
/lti/open/CODE (the session cookie, set on a navigation within this site) and
/lti/jwks (the tool's public key, for the platform's side of the client-credentials
grant and for a deep linking response, whose picker /lti/launch answers with).

Cookies. The launch is a cross-site POST from the LMS's page, and a browser sends a cookie with
it only if the cookie is `SameSite=None`, which browsers accept only with `Secure`: the state
cookie is `SameSite=None; Secure; Partitioned` (Partitioned keeps it working in an LMS frame
where third-party cookies are blocked, as Chrome partitions them), and named `__Host-...` (so
`Path=/`): no sibling site can plant one (grader.service.lti.lti). Browsers keep `Secure` cookies
over https, and over plain http from loopback only (127.0.0.1, localhost, which Chromium counts
as secure): elsewhere the server refuses to begin an LTI login over plain http. The session
cookie stays `SameSite=Strict`: the launch answers with a page that opens /lti/open/CODE, a
navigation this site starts, so the cookie set there is first-party and sent to the pages.
"""

from __future__ import annotations

import ipaddress
from functools import partial
from urllib.parse import urlsplit

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from grader.outputs.html_page import e
from grader.service import access
from grader.service.access.identity import set_session
from grader.service.lti import lti
from grader.service.lti.deep_linking import Picker
from grader.service.lti.lti_config import LtiSettings
from grader.service.lti.lti_token import Keys, LaunchRefused
from grader.service.pages.forms import fields
from grader.service.pages.layout import carried, course_page
from grader.service.state import state_of

#: a login initiation or a launch is a few KiB (Canvas's lti_message_hint, an id_token of 2-4 KiB)
MAX_FORM = 64 * 1024


def _settings(request: Request) -> LtiSettings | None:
    return state_of(request).course.lti


def _tool_url(request: Request, settings: LtiSettings) -> str | None:
    """This server as the LMS knows it: course.toml's [lti] url, else as asked; None
    where that is plain http beyond loopback (the state cookie would not come back)."""
    url = settings.url or f"{request.url.scheme}://{request.url.netloc}"
    if url.startswith("https://") or _loopback(urlsplit(url).hostname or ""):
        return url
    return None


def _loopback(host: str) -> bool:
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


async def _params(request: Request) -> dict[str, str] | None:
    """The query (GET) or the urlencoded form (POST), bounded; None if too big."""
    if request.method == "GET":
        return dict(request.query_params)
    return await fields(request, MAX_FORM)


def _page(request: Request, title: str, body: str) -> str:
    """A page of this course (its name at the top), as every page of the server."""
    return course_page(state_of(request), title, body)


def _refused(request: Request, refused: LaunchRefused) -> HTMLResponse:
    body = f"<h1>{e(refused.title)}</h1><p>{e(refused.message)}</p>"
    if refused.relaunch:
        body += (
            f'<p><a href="{e(refused.relaunch)}" target="_blank" rel="noopener">Open the '
            'assignment in a new window</a>, where the sign-in can keep its cookie.</p>'
        )
    if refused.setup:
        body += f'<p class="muted">For the instructor: <code>{e(refused.setup)}</code></p>'
    return HTMLResponse(_page(request, refused.title, body), refused.status)


def _no_lti(request: Request) -> HTMLResponse:
    if (
        state_of(request).live.closed is not None
    ):  # the registration cannot be read now: none is trusted
        return HTMLResponse(
            _page(
                request,
                "LMS launches are closed",
                "<h1>LMS launches are closed for now</h1><p>"
                "The course's LMS registration cannot be read, so no launch is taken; the "
                "instructor's page says why. Sign in with <code>grade submit --login</code> "
                "meanwhile.</p>",
            ),
            503,
        )
    return HTMLResponse(
        _page(
            request,
            "No LMS launch",
            "<h1>This course takes no LMS launch</h1><p>Its course.toml "
            "has no [lti] table: sign in with <code>grade submit --login</code>.</p>",
        ),
        404,
    )


def _plain_http(request: Request) -> HTMLResponse:
    return _refused(
        request,
        LaunchRefused(
            400,
            "LMS launches need https",
            "The LMS launches from its own site, and browsers "
            "send the cookie that binds a sign-in across sites only over https.",
            setup="serve over TLS, and set [lti] url = \"https://...\" in course.toml",
        ),
    )


async def _incoming(request: Request) -> tuple[LtiSettings, str, dict[str, str]] | Response:
    """The course's LTI settings, this server's URL and
    the request's parameters; or the page saying why not."""
    settings = _settings(request)
    if settings is None:
        return _no_lti(request)
    tool = _tool_url(request, settings)
    if tool is None:
        return _plain_http(request)
    params = await _params(request)
    if params is None:
        return _refused(
            request,
            LaunchRefused(413, "Not a launch", "The request is too big for a login or a launch."),
        )
    return settings, tool, params


def _cookie(name: str, value: str, max_age: int) -> str:
    """The state's cookie, set by hand: Partitioned needs Python
    3.14 in http.cookies, and Starlette refuses it before."""
    return (
        f"{name}={value}; Max-Age={max_age}; Path=/; HttpOnly; Secure; SameSite=None; Partitioned"
    )


@access.lms
async def login(request: Request) -> Response:
    incoming = await _incoming(request)
    if isinstance(incoming, Response):
        return incoming
    settings, tool, params = incoming
    try:
        found = await run_in_threadpool(lti.begin, state_of(request).engine, settings, params, tool)
    except LaunchRefused as refused:
        return _refused(request, refused)
    response = RedirectResponse(found.redirect, status_code=302)
    response.headers.append(
        "set-cookie", _cookie(lti.state_cookie(found.state), found.state, lti.STATE_SECONDS)
    )
    return response


@access.lms
async def launch(request: Request) -> Response:
    incoming = await _incoming(request)
    if isinstance(incoming, Response):
        return incoming
    settings, tool, form = incoming
    state = state_of(request)
    # in a frame of the LMS's page, cookies set here may be
    # partitioned away or dropped: begin again in a window
    framed = request.headers.get("sec-fetch-dest") == "iframe"
    try:
        found = await run_in_threadpool(
            partial(lti.finish, framed=framed),
            state.engine,
            state.course,
            form,
            request.cookies,
            _keys(request, settings),
            tool,
        )
    except LaunchRefused as refused:
        response = _refused(request, refused)
        response.headers.append(
            "set-cookie", _cookie(lti.state_cookie(form.get("state", "")), "", 0)
        )
        response.headers["Cache-Control"] = "no-store"
        return response
    if isinstance(found, Picker):  # its login is spent: no session follows
        response = HTMLResponse(_page(request, "Add an assignment", _picker(found)))
        response.headers.append(
            "set-cookie", _cookie(lti.state_cookie(form.get("state", "")), "", 0)
        )
    else:
        # the state's cookie stays until /lti/open: it shows
        # that the browser opening the session launched it
        opener = f"/lti/open/{found.code}"
        body = (
            f'<h1>Signed in</h1><p><a href="{e(opener)}">Open '
            f"{'the instructor page' if found.instructor else 'your page'}</a> (the link works "
            "once, for two minutes, in this browser).</p>"
        )
        if found.setup:
            body += f'<p class="muted">For the instructor: {e(found.setup)}</p>'
        html = _page(request, "Signed in", body)
        if not found.setup:
            html = html.replace(
                "</head>", f'<meta http-equiv="refresh" content="0;url={e(opener)}">\n</head>', 1
            )
        response = HTMLResponse(html)
    response.headers["Cache-Control"] = "no-store"
    return response


@access.lms
async def open_session(request: Request) -> Response:
    found = await run_in_threadpool(
        lti.open_launch, state_of(request).engine, request.path_params["code"], request.cookies
    )
    if found is None:
        return HTMLResponse(
            _page(
                request,
                "Link used",
                "<h1>This link has expired, was used, or is another "
                "browser's</h1><p>Open the assignment in the LMS again.</p>",
            ),
            403,
        )
    session, destination = found
    response = RedirectResponse(destination, status_code=303)
    set_session(response, request, session)
    for name in request.cookies:
        if name.startswith(lti.STATE_COOKIE):
            response.headers.append("set-cookie", _cookie(name, "", 0))
    return response


@access.anyone  # the LMS's server fetches it
async def jwks(request: Request) -> Response:
    """The tool's public key set: what the LMS checks the tool's client assertions
    with (the registration's JWK URL in Canvas, the public keyset URL in Moodle)."""
    import jwt
    from cryptography.hazmat.primitives.asymmetric.rsa import RSAPrivateKey
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    settings = _settings(request)
    if settings is None:
        return JSONResponse({"keys": []}, status_code=404)
    try:
        private = load_pem_private_key(settings.platform.private_key.encode(), password=None)
    except (ValueError, TypeError):
        private = None
    if not isinstance(private, RSAPrivateKey):
        return JSONResponse(
            {"error": f"{settings.registration.name}: key_file holds no RSA private key"}, 500
        )
    public = jwt.algorithms.RSAAlgorithm.to_jwk(private.public_key(), as_dict=True)
    return JSONResponse(
        {"keys": [{**public, "kid": settings.platform.key_id, "alg": "RS256", "use": "sig"}]},
        headers={"Cache-Control": "max-age=300"},
    )


def _picker(picker: Picker) -> str:
    """The course's assignments to add to the LMS course (a deep linking launch): each button
    posts its own signed response straight to the LMS (grader.service.lti.deep_linking says why)."""
    rows = "".join(
        _post_back(picker.return_url, choice.jwt, f"Add {choice.label}", choice.note)
        for choice in picker.choices
    )
    return (
        f"<h1>{e(picker.title or 'Add an assignment to the LMS course')}</h1>\n{rows}"
        f"{_post_back(picker.return_url, picker.cancel, 'Cancel', '')}"
        '<p class="muted">Each becomes a link in the LMS that opens its assignment here. '
        "The buttons work for 15 minutes.</p>"
    )


def _post_back(url: str, jwt: str, label: str, note: str) -> str:
    return (
        f'<form method="post" action="{e(url)}">{carried({"JWT": jwt})}'
        f'<p><button>{e(label)}</button> <span class="muted">{e(note)}</span></p></form>\n'
    )


def _keys(request: Request, settings: LtiSettings) -> Keys:
    """The platform's key set, cached for this process
    (PyJWKClient: 5 minutes, once more for an unknown kid)."""
    from jwt import PyJWKClient

    held = getattr(request.app.state, "lti_keys", None)
    if not isinstance(held, PyJWKClient) or held.uri != settings.platform.jwks_url:
        held = PyJWKClient(settings.platform.jwks_url, cache_jwk_set=True, lifespan=300, timeout=10)
        request.app.state.lti_keys = held
    return held


def routes() -> list[Route]:
    return [
        Route("/lti/login", login, methods=["GET", "POST"]),
        Route("/lti/launch", launch, methods=["POST"]),
        Route("/lti/open/{code}", open_session),
        Route("/lti/jwks", jwks),
    ]
