"""LTI 1.3 launch: the 1EdTech Security Framework's OIDC third-party login (the
platform's login initiation, the tool's authentication request, the id_token posted back)
and Core 1.3's checks of a resource link launch. State and nonce are single-use and kept
in the store with their expiry, so that any of a course's servers can finish a login
another began; a cookie named after the state binds it to the browser that began it.

The id_token itself is checked in grader.service.lti.lti_token.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

from sqlalchemy import Connection, Engine, delete, func, insert, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError

from grader.service.config import Course
from grader.service.db import schema
from grader.service.db.store import reading, writing
from grader.service.lti import columns, deep_linking
from grader.service.lti.deep_linking import Picker
from grader.service.lti.lti_config import LtiSettings, platform_id
from grader.service.lti.lti_token import (
    CLAIM,
    Keys,
    LaunchRefused,
    check_claims,
    check_launch,
    origin,
    short,
)
from grader.service.tokens import lti_session

NRPS_CLAIM = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
#: context roles only: an institution role (Canvas sends
#: institution/person#Instructor for anyone who teaches anywhere) says nothing of
#: this course, so a student who teaches another course is still a student here
INSTRUCTOR_ROLES = frozenset(
    {
        "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor",
        "http://purl.imsglobal.org/vocab/lis/v2/membership#Administrator",
    }
)
#: from login initiation to the launch: the platform answers at once (prompt=none)
STATE_SECONDS = 300
#: from the launch to the page's first request
OPEN_SECONDS = 120
#: logins under way at once: past it, the oldest give way (unauthenticated requests cannot fill the
#: store, nor lock the others out); refused (503) only where the table holds launches' codes alone
MAX_PENDING = 10_000
#: a login initiation's parameters (Security Framework 5.1.1.1), each
#: at most _TEXT characters (Canvas's lti_message_hint, a JWT, is under
#: 1 KiB): at most ~12 KiB a login under way, ~120 MB for MAX_PENDING
_LOGIN_KEYS = (
    "iss",
    "login_hint",
    "target_link_uri",
    "lti_message_hint",
    "client_id",
    "lti_deployment_id",
)
_TEXT = 2048


@dataclass(frozen=True, slots=True)
class Login:
    redirect: str
    state: str


@dataclass(frozen=True, slots=True)
class Launch:
    """A launch that passed every check: the one-time
    code that opens its session, and where it leads."""

    code: str
    destination: str
    instructor: bool
    setup: str = ""


def _digest(kind: str, value: str) -> str:
    return hashlib.sha256(f"{kind}:{value}".encode()).hexdigest()


#: how a state cookie's name begins: __Host-, so that only this host sets it (Secure,
#: Path=/, no Domain); a plain cookie could be planted by a sibling site
#: (students.example.edu beside grader.example.edu) in a victim's browser with the state
#: of the planter's own sign-in, whose launch would then sign the victim in as the planter
STATE_COOKIE = "__Host-grader_lti_"


def state_cookie(state: str) -> str:
    """The cookie that binds `state` to a browser: one
    per login, so that two launches at once keep theirs."""
    return STATE_COOKIE + _digest("cookie", state)[:16]


def sync_platforms(engine: Engine, settings: LtiSettings | None) -> int:
    """The store accepts the deployments course.toml
    names, and no other: a removed one's sessions end now."""
    wanted = settings.deployments() if settings is not None else {}
    p = schema.lti_platforms.c
    with writing(engine) as db:
        known = {row.id for row in db.execute(select(p.id))}
        for ident, deployment in wanted.items():
            if ident not in known:
                assert settings is not None
                db.execute(
                    insert(schema.lti_platforms).values(
                        id=ident,
                        issuer=settings.platform.issuer,
                        client_id=settings.platform.client_id,
                        deployment_id=deployment,
                        memberships_url="",
                        context_id="",
                    )
                )
        gone = sorted(known - set(wanted))
        if gone:
            db.execute(delete(schema.lti_platforms).where(p.id.in_(gone)))
            # their lti_sessions rows went with them (ON DELETE CASCADE); the sessions, too:
            db.execute(
                delete(schema.sessions).where(
                    schema.sessions.c.kind == "lti",
                    schema.sessions.c.digest.not_in(select(schema.lti_sessions.c.digest)),
                )
            )
    return len(gone)


def follow_platforms(engine: Engine, settings: LtiSettings | None) -> None:
    """sync_platforms for a registration edited while the server runs:
    every process of the course does it at once, so one that finds its
    insert made by another in between asks again (it then finds the row)."""
    try:
        sync_platforms(engine, settings)
    except IntegrityError:
        sync_platforms(engine, settings)


def begin(engine: Engine, settings: LtiSettings, params: Mapping[str, str], tool_url: str) -> Login:
    """Login initiation (Security Framework 5.1.1.1): check who asks, keep a state and
    a nonce, and send the browser to the platform's authorization endpoint (5.1.1.2)."""
    _check_login(settings, params, tool_url)
    # all the store keeps of an unsigned request
    kept = {k: v for k, v in params.items() if k in _LOGIN_KEYS}
    if any(len(v) > _TEXT for v in kept.values()):
        raise LaunchRefused(400, "Not a launch", "A parameter of the login initiation is too long.")
    state, nonce = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    _keep_login(engine, state, nonce, kept)
    platform = settings.platform
    query = {
        "scope": "openid",
        "response_type": "id_token",
        "response_mode": "form_post",
        "prompt": "none",
        "client_id": platform.client_id,
        "redirect_uri": f"{tool_url}/lti/launch",
        "login_hint": params["login_hint"],
        "state": state,
        "nonce": nonce,
    }
    if params.get("lti_message_hint"):
        query["lti_message_hint"] = params["lti_message_hint"]
    separator = "&" if urlsplit(platform.auth_url).query else "?"
    return Login(platform.auth_url + separator + urlencode(query), state)


def _check_login(settings: LtiSettings, params: Mapping[str, str], tool_url: str) -> None:
    """Who asks: this course's LMS, registration and deployment, for this server."""
    platform = settings.platform
    if params.get("iss") != platform.issuer:
        raise LaunchRefused(
            400,
            "Unknown LMS",
            f"This course takes launches from {platform.issuer} only, not from "
            f"{short(params.get('iss', 'an LMS that did not say'))}.",
        )
    if params.get("client_id", platform.client_id) != platform.client_id:
        raise LaunchRefused(
            400,
            "Unknown registration",
            "The launch names another client_id than this course's registration.",
            setup=f"client_id: {short(params['client_id'])}",
        )
    deployment = params.get("lti_deployment_id")
    if deployment is not None and deployment not in platform.deployment_ids:
        raise LaunchRefused(
            400,
            "Unknown deployment",
            "The LMS launched a deployment of the tool this course does not accept.",
            setup=f"add to deployment_ids in {settings.registration.name}: {short(deployment)}",
        )
    target = params.get("target_link_uri", "")
    if not params.get("login_hint") or not target:
        why = "A login initiation needs iss, login_hint and target_link_uri."
        raise LaunchRefused(400, "Not a launch", why)
    if origin(target) != origin(tool_url):
        why = f"The launch is for {short(target)}, not for this server ({tool_url})."
        raise LaunchRefused(400, "Not this server", why)


def _keep_login(engine: Engine, state: str, nonce: str, kept: dict[str, str]) -> None:
    """Keep a login under way in the store until its launch; Busy where MAX_PENDING are, and
    none can give way."""
    now = time.time()
    states = schema.lti_states.c
    with writing(engine) as db:
        db.execute(delete(schema.lti_states).where(states.expires_at < now))
        count = db.execute(select(func.count()).select_from(schema.lti_states)).scalar_one()
        busy = count >= MAX_PENDING and not _give_way(db, count - MAX_PENDING + 1)
        if not busy:
            db.execute(
                insert(schema.lti_states).values(
                    digest=_digest("login", state),
                    nonce=nonce,
                    expires_at=now + STATE_SECONDS,
                    login=json.dumps(kept),
                )
            )
    if busy:
        # what was given way and what had expired is gone all the same
        why = "Too many sign-ins are under way; open the assignment again in a minute."
        raise LaunchRefused(503, "Busy", why)


def _give_way(db: Connection, count: int) -> bool:
    """Forget the `count` oldest logins under way (never a launch's code waiting to be
    opened), if there are so many. A flood of login initiations (anyone may send them)
    then has to outrun every real sign-in, which needs its state for the second or two
    from here to the launch: refusing every login once MAX_PENDING is reached let one
    client lock every student out, 10,000 requests (144 s here) renewed at 35 a second."""
    s = schema.lti_states.c
    oldest = (
        select(s.digest).where(s.nonce != "").order_by(s.expires_at).limit(count).scalar_subquery()
    )
    return bool(db.execute(delete(schema.lti_states).where(s.digest.in_(oldest))).rowcount >= count)


def finish(
    engine: Engine,
    course: Course,
    form: Mapping[str, str],
    cookies: Mapping[str, str],
    keys: Keys,
    tool_url: str,
    *,
    framed: bool = False,
) -> Launch | Picker:
    """The authentication response (5.1.1.3): the id_token, checked (5.1.3, Core 1.3 5.3),
    mapped to the roster, and a one-time code for the session it opens, good only in the
    browser holding the state's cookie. A launch `framed` in the LMS's page opens nothing
    there: the frame's cookies may be partitioned or blocked, so it is begun again in a window
    of its own. A deep linking launch (an instructor adding an assignment from the LMS,
    grader.service.lti.deep_linking) opens no session: its picker is this page, framed or not."""
    settings = course.lti
    assert settings is not None
    if form.get("error"):
        raise LaunchRefused(
            403,
            "The LMS refused the launch",
            f"{short(form['error'])}: {short(form.get('error_description', ''))}",
        )
    state, token = form.get("state", ""), form.get("id_token", "")
    if not state or not token:
        raise LaunchRefused(400, "Not a launch", "A launch posts id_token and state.")
    nonce, login = _spend_state(engine, state, cookies)
    claims = check_claims(token, settings, keys)
    check_launch(claims, settings, nonce, tool_url)
    if claims[CLAIM + "message_type"] == deep_linking.REQUEST:
        return deep_linking.pick(course, settings, claims, _teaches(claims), tool_url)
    if framed:
        raise LaunchRefused(
            200,
            "Open the assignment in a window of its own",
            "The LMS shows it in a frame of its "
            "page, where your browser may keep this site's cookies from it.",
            relaunch=_relaunch(login),
        )
    return _admit(engine, course, settings, claims, state)


def _spend_state(engine: Engine, state: str, cookies: Mapping[str, str]) -> tuple[str, str]:
    """The nonce and the login a launch's state was kept with, spent: good once, before it
    expires, and only in the browser that holds the state's cookie."""
    states = schema.lti_states.c
    digest = _digest("login", state)
    if not hmac.compare_digest(cookies.get(state_cookie(state), ""), state):
        with reading(engine) as db:
            found = select(states.login).where(states.digest == digest)
            login = db.execute(found).scalar_one_or_none()
        raise LaunchRefused(
            403,
            "Open it in a window of its own",
            "Your browser did not send back the cookie of this sign-in (a frame in the LMS page, "
            "with third-party cookies blocked, or a plain-http server), "
            "so it cannot be told from a sign-in forged for you.",
            relaunch=_relaunch(login),
        )
    with writing(engine) as db:
        spent = db.execute(
            delete(schema.lti_states)
            .where(states.digest == digest, states.expires_at >= time.time())
            .returning(states.nonce, states.login)
        ).first()
    if spent is None:
        why = "Open the assignment in the LMS again."
        raise LaunchRefused(403, "This launch expired or was used", why)
    return str(spent.nonce), str(spent.login)


def _relaunch(login: str | None) -> str:
    """The login initiation again, from its parameters as the platform sent them."""
    return "/lti/login?" + urlencode(json.loads(login)) if login else ""


def _admit(
    engine: Engine, course: Course, settings: LtiSettings, claims: dict[str, Any], state: str
) -> Launch:
    instructor = _teaches(claims)
    link = claims[CLAIM + "resource_link"]["id"]
    custom = claims.get(CLAIM + "custom")
    named = custom.get(settings.custom) if isinstance(custom, dict) else None
    assignment = named if named in course.assignments else settings.links.get(link)
    ident = platform_id(
        settings.platform.issuer, settings.platform.client_id, claims[CLAIM + "deployment_id"]
    )
    nrps = claims.get(NRPS_CLAIM)
    memberships = nrps.get("context_memberships_url") if isinstance(nrps, dict) else None
    code = secrets.token_urlsafe(32)
    with writing(engine) as db:
        person = _person(db, claims, instructor)
        if isinstance(memberships, str) and urlsplit(memberships).scheme in ("http", "https"):
            _remember(db, ident, claims[CLAIM + "context"]["id"], memberships)
        columns.remember(
            db, ident, assignment, link, claims
        )  # the LMS column of the link, for publishing
        destination = (
            (f"/instructor?assignment={quote(assignment)}" if assignment else "/instructor")
            if instructor
            else (f"/me/assignments/{quote(assignment, safe='')}" if assignment else "/me")
        )
        db.execute(
            insert(schema.lti_states).values(
                digest=_digest("open", code),
                nonce="",
                expires_at=time.time() + OPEN_SECONDS,
                login=json.dumps(
                    {
                        "student": person,
                        "platform": ident,
                        "subject": claims["sub"],
                        "to": destination,
                        "browser": _digest("login", state),
                    }
                ),
            )
        )
    setup = (
        ""
        if assignment or not instructor
        else (
            "This LMS link opens no assignment yet. In course.toml, [lti.links]: "
            f"\"{short(link)}\" = \"ASSIGNMENT\" (one of {', '.join(course.assignments)}), or give "
            f"the link the custom parameter {settings.custom}=ID."
        )
    )
    return Launch(code, destination, instructor, setup)


def _remember(db: Connection, platform: str, context: str, memberships: str) -> None:
    """The Names and Roles URL of the LMS context (a course, a section) a launch
    came from, kept beside every other linked context's: grade roster sync reads
    them all (grader.service.lti.lti_roster). One statement, so that two
    launches of a context at once (on PostgreSQL, two servers) both keep it."""
    dialect_insert = sqlite_insert if db.dialect.name == "sqlite" else pg_insert
    found = {"memberships_url": memberships, "seen_at": time.time()}
    db.execute(
        dialect_insert(schema.lti_contexts)
        .values(platform=platform, context_id=context, **found)
        .on_conflict_do_update(index_elements=["platform", "context_id"], set_=found)
    )


def _teaches(claims: Mapping[str, Any]) -> bool:
    roles = claims.get(CLAIM + "roles", [])
    return isinstance(roles, list) and any(r in INSTRUCTOR_ROLES for r in roles)


def _person(db: Connection, claims: dict[str, Any], instructor: bool) -> str:
    """The roster's id of the launch's user: a student
    must be on it; an instructor is added on first launch."""
    st = schema.students.c
    sub = claims["sub"]
    rows = db.execute(select(st.id, st.role).where(st.lti_user_id == sub)).all()
    if not instructor:
        if len(rows) == 1 and rows[0].role == "student":
            return str(rows[0].id)
        raise LaunchRefused(
            403,
            "You are not on this course's roster",
            "The LMS signed you in, but the grader's roster "
            "has no student with your LMS id. Ask your instructor to add you (grade roster sync).",
            setup=f"lti_user_id: {short(sub)}" if not rows else "",
        )
    if any(r.role != "instructor" for r in rows) or len(rows) > 1:
        raise LaunchRefused(
            403,
            "The roster lists you as a student",
            "The LMS says you teach this course, and the "
            "roster lists your LMS id as a student's: ask the course's owner to sort it out.",
        )
    if rows:
        return str(rows[0].id)
    ident = f"lti:{sub}"[:200]
    if db.execute(select(st.id).where(st.id == ident)).first() is not None:
        raise LaunchRefused(
            403, "The roster lists you twice", f"The roster already has a person {ident!r}."
        )
    name = " ".join(str(claims.get("name") or "").split())[:200] or ident
    db.execute(
        insert(schema.students).values(
            id=ident,
            name=name,
            email=str(claims.get("email") or "")[:200],
            sis_user_id="",
            sis_login_id="",
            section="",
            role="instructor",
            lti_user_id=sub,
        )
    )
    return ident


def open_launch(engine: Engine, code: str, cookies: Mapping[str, str]) -> tuple[str, str] | None:
    """Spend a launch's one-time code: (a session, where it leads), or None if
    unknown, used, expired, or opened in another browser than the one that launched
    (which holds the state's cookie): a code an attacker got from a launch of their
    own, sent to a victim, would sign the victim in as the attacker."""
    s = schema.lti_states.c
    with writing(engine) as db:
        login = db.execute(
            delete(schema.lti_states)
            .where(s.digest == _digest("open", code), s.expires_at >= time.time())
            .returning(s.login)
        ).scalar_one_or_none()
    if login is None:
        return None
    data = json.loads(login)
    held = [value for name, value in cookies.items() if name.startswith(STATE_COOKIE)]
    if not any(hmac.compare_digest(_digest("login", value), data["browser"]) for value in held):
        return None
    try:
        return lti_session(engine, data["student"], data["platform"], data["subject"]), str(
            data["to"]
        )
    except IntegrityError:  # its deployment was removed in between
        return None
