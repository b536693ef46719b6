"""LTI 1.3 launch into a real `grade serve` on loopback, from the test platform (tests/ags_platform.py, its own key):
the OIDC login, each check of the id_token (a forged token, a replayed nonce, the wrong audience, an expired
token, the wrong deployment, the wrong message type, a student not on the roster, and more), the state bound to
the browser, two servers on one store, and the launch in headless Chromium across two sites."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import json
import sqlite3
import subprocess
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import jwt
import pytest
from ags_platform import CLAIM, LEARNER, Platform, running
from browser import FLAGS, chromium
from cryptography.hazmat.primitives.asymmetric import rsa
from lti_launch import (
    USERS,
    api,
    authorize,
    initiate,
    launch,
    login,
    lti_course,
    opener,
    public_pem,
    request,
    serving,
    sign_in,
    tool_key,
)
from service_helpers import Server, free_port, postgres

pytestmark = pytest.mark.slow
DEADLINE = (datetime.now(UTC) + timedelta(days=7)).strftime("%Y-%m-%dT%H:%M:%SZ")


@pytest.fixture(scope="module")
def key_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tool_key(tmp_path_factory.mktemp("keys"))


@pytest.fixture(scope="module")
def platform(key_file: Path) -> Iterator[Platform]:
    lms = Platform(client_id="grader-tool", key_id="tool-key-1", public_key=public_pem(key_file),
                   users={k: dict(v) for k, v in USERS.items()}, custom={"rl-custom": {"assignment": "hw1"}},
                   browser_host="lms.test")  # a site of its own for Chromium; the tool is at 127.0.0.1
    with running(lms) as started:
        yield started


@pytest.fixture(scope="module")
def course(platform: Platform, key_file: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return lti_course(tmp_path_factory.mktemp("course"), platform, key_file, deadline=DEADLINE)


@pytest.fixture(scope="module")
def tool(platform: Platform, course: Path) -> Iterator[str]:
    with serving(course, platform) as url:
        yield url


@pytest.fixture(autouse=True)
def clean(platform: Platform) -> Iterator[None]:
    yield
    platform.override.clear()
    assert platform.problems == [], platform.problems
    platform.problems.clear()


def test_a_student_launch_opens_their_page_for_the_linked_assignment(tool: str, platform: Platform) -> None:
    pending = login(tool, platform, "lti-s1")
    # the authentication request, as the Security Framework says (5.1.1.2)
    asked = {k: v[0] for k, v in parse_qs(urlsplit(pending.location).query).items()}
    assert pending.location.startswith(platform.auth_url + "?")
    assert {k: asked[k] for k in ("scope", "response_type", "response_mode", "prompt", "client_id", "redirect_uri",
                                  "login_hint", "lti_message_hint")} == {
        "scope": "openid", "response_type": "id_token", "response_mode": "form_post", "prompt": "none",
        "client_id": "grader-tool", "redirect_uri": f"{tool}/lti/launch", "login_hint": "lti-s1",
        "lti_message_hint": "rl-hw1"}
    assert len(pending.state) >= 40 and len(pending.nonce) >= 40 and pending.state != pending.nonce
    # the cookie that binds the state to this browser crosses sites: SameSite=None, so Secure; Partitioned for frames
    ((name, (value, attributes)),) = [(k, v) for k, v in pending.answer.cookies.items()
                                      if k.startswith("__Host-grader_lti_")]
    assert value == pending.state
    assert {"Secure", "HttpOnly", "SameSite=None", "Partitioned", "Path=/"} <= set(
        a.strip() for a in attributes.split(";"))
    action, fields = authorize(pending)
    assert action == f"{tool}/lti/launch" and set(fields) == {"id_token", "state"}
    answer = launch(tool, fields, pending.cookie)
    assert answer.status == 200, answer.body
    assert f'url={opener(answer)}"' in answer.body  # opened at once, from a page of this site
    assert name not in answer.cookies  # kept: it shows that the browser opening the session is the one that launched
    opened = request(tool + opener(answer), cookies=pending.cookie)
    assert opened.status == 303 and opened.header("location") == "/me/assignments/hw1"
    assert opened.cookies[name][0] == "" and "Max-Age=0" in opened.cookies[name][1]  # now it is spent
    session, attributes = opened.cookies["grader_session"]
    assert "HttpOnly" in attributes and "SameSite=strict" in attributes
    page = request(f"{tool}/me/assignments/hw1", cookies={"grader_session": session})
    assert page.status == 200 and "s1" in page.body and "hw1" in page.body and "all assignments" in page.body
    assert api(tool, "/api/status", session)[1]["student"] == "s1"
    assert request(f"{tool}/instructor", cookies={"grader_session": session}).status == 403
    # the login initiation may come as a GET too (5.1.1.1)
    assert login(tool, platform, "lti-s2", method="GET").state


def test_an_instructor_launch_opens_the_instructor_page(tool: str, platform: Platform) -> None:
    session, destination = sign_in(tool, platform, "lti-prof")
    assert destination == "/instructor?assignment=hw1"
    page = request(tool + destination, cookies={"grader_session": session})
    assert page.status == 200 and "Queue" in page.body
    # a link that no assignment is mapped to: the instructor is told what to write, with the link's id
    pending = login(tool, platform, "lti-prof", "rl-unmapped")
    answer = launch(tool, authorize(pending)[1], pending.cookie)
    assert answer.status == 200 and "rl-unmapped" in answer.body and "[lti.links]" in answer.body
    assert "http-equiv=\"refresh\"" not in answer.body  # read first, then followed


def test_the_custom_parameter_or_the_link_names_the_assignment(tool: str, platform: Platform) -> None:
    assert sign_in(tool, platform, "lti-s2", "rl-custom")[1] == "/me/assignments/hw1"
    assert sign_in(tool, platform, "lti-s2", "rl-unmapped")[1] == "/me"


def _hs256(claims: dict[str, Any], secret: bytes, kid: str) -> str:
    """An HS256 token keyed with the platform's public key: the algorithm-confusion forgery."""
    def part(data: object) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()

    head = f"{part({'alg': 'HS256', 'typ': 'JWT', 'kid': kid})}.{part(claims)}"
    return head + "." + base64.urlsafe_b64encode(hmac.new(secret, head.encode(), hashlib.sha256).digest()
                                                 ).rstrip(b"=").decode()


OTHER_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
NOW = int(time.time())
#: (what the token changes, the words of the refusal)
FORGED: dict[str, tuple[dict[str, Any], str]] = {
    "signed by another key under the platform's kid": ({"key": OTHER_KEY}, "signature does not verify"),
    "signed by another key under an unknown kid": ({"key": OTHER_KEY, "kid": "mine"}, "a key the LMS does not"),
    "the wrong audience": ({"aud": "another-tool"}, "for another tool (aud)"),
    "several audiences, no azp": ({"aud": ["grader-tool", "another-tool"]}, "several audiences and no azp"),
    "azp another party": ({"aud": ["grader-tool", "x"], "azp": "x"}, "issued to another party (azp)"),
    "expired": ({"iat": NOW - 7200, "exp": NOW - 3600}, "has expired"),
    "issued in the future": ({"iat": NOW + 3600, "exp": NOW + 7200}, "does not hold"),
    "another issuer": ({"iss": "https://evil.example"}, "another LMS (iss)"),
    "no nonce": ({"nonce": None}, "does not hold"),
    "another sign-in's nonce": ({"nonce": "n" * 43}, "nonce is not this sign-in"),
    "the wrong deployment id": ({CLAIM + "deployment_id": "1:other"}, "Unknown deployment"),
    "the wrong message type": ({CLAIM + "message_type": "LtiSubmissionReviewRequest"}, "Not an assignment link"),
    "a student's deep linking request": ({CLAIM + "message_type": "LtiDeepLinkingRequest"}, "Only an instructor"),
    "LTI 1.1": ({CLAIM + "version": "1.1"}, "not 1.3.0"),
    "no resource link": ({CLAIM + "resource_link": None}, "no resource link id"),
    "another LMS course": ({CLAIM + "context": {"id": "ctx-other"}}, "not linked to this course"),
    "for another tool": ({CLAIM + "target_link_uri": "https://evil.example/launch"}, "another tool"),
    "a student not on the roster": ({"sub": "lti-stranger"}, "not on this course"),
    "an instructor of another course teaching here": ({"sub": "lti-stranger", CLAIM + "context": {"id": "ctx-9"}},
                                                      "not linked to this course"),
}


@pytest.mark.parametrize("case", sorted(FORGED))
def test_a_forged_or_wrong_launch_opens_nothing(tool: str, platform: Platform, case: str) -> None:
    changes, words = FORGED[case]
    pending = login(tool, platform, "lti-s1")
    token = platform.id_token("lti-s1", "rl-hw1", pending.nonce, f"{tool}/lti/launch", **changes)
    answer = launch(tool, {"id_token": token, "state": pending.state}, pending.cookie)
    assert answer.status in (400, 403) and words in answer.body, answer.body
    assert "/lti/open/" not in answer.body and "grader_session" not in answer.cookies


@pytest.mark.parametrize("alg", ["none", "HS256"])
def test_a_token_not_signed_rs256_is_refused(tool: str, platform: Platform, alg: str) -> None:
    pending = login(tool, platform, "lti-s1")
    signed = platform.id_token("lti-s1", "rl-hw1", pending.nonce, f"{tool}/lti/launch")
    claims = jwt.decode(signed, options={"verify_signature": False})
    token = jwt.encode(claims, None, algorithm="none") if alg == "none" else \
        _hs256(claims, public_pem_of(platform).encode(), platform.kid)
    answer = launch(tool, {"id_token": token, "state": pending.state}, pending.cookie)
    assert answer.status == 403 and f"signed with {alg}, not RS256" in answer.body


def public_pem_of(platform: Platform) -> str:
    from cryptography.hazmat.primitives import serialization

    return platform.signing_key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()


def test_a_launch_and_its_nonce_are_single_use(tool: str, platform: Platform) -> None:
    pending = login(tool, platform, "lti-s1")
    _, fields = authorize(pending)
    first = launch(tool, fields, pending.cookie)
    assert first.status == 200
    again = launch(tool, fields, pending.cookie)  # the same post, replayed
    assert again.status == 403 and "expired or was used" in again.body
    fresh = login(tool, platform, "lti-s1")  # the old id_token with a new sign-in's state: its nonce is not this one's
    replayed = launch(tool, {"id_token": fields["id_token"], "state": fresh.state}, fresh.cookie)
    assert replayed.status == 403 and "nonce is not this sign-in" in replayed.body
    link = tool + opener(first)
    assert request(link, cookies=pending.cookie).status == 303
    assert request(link, cookies=pending.cookie).status == 403  # the opening link, once


def test_the_opening_link_works_only_in_the_browser_that_launched(tool: str, platform: Platform) -> None:
    """Login CSRF again: an attacker launches as themselves and sends the victim the page's /lti/open link; the
    victim's browser holds no cookie of that sign-in, so the link opens nothing (and is spent)."""
    for stolen in ({}, login(tool, platform, "lti-s2").cookie):
        pending = login(tool, platform, "lti-s1")
        answer = launch(tool, authorize(pending)[1], pending.cookie)
        assert answer.status == 200
        refused = request(tool + opener(answer), cookies=stolen)
        assert refused.status == 403 and "another browser" in refused.body and "grader_session" not in refused.cookies
        assert request(tool + opener(answer), cookies=pending.cookie).status == 403


def test_a_launch_without_the_browsers_cookie_is_refused_and_offered_a_window(tool: str, platform: Platform) -> None:
    """Login CSRF: a state and id_token posted from a browser that did not begin the login (an attacker's own
    launch, made to sign the victim in as the attacker) finds no cookie, and opens nothing."""
    pending = login(tool, platform, "lti-s1")
    _, fields = authorize(pending)
    for cookie in ({}, {next(iter(pending.cookie)): "x" * 43}, {"__Host-grader_lti_0000000000000000": pending.state}):
        answer = launch(tool, fields, cookie)
        assert answer.status == 403 and "did not send back the cookie" in answer.body
        assert "/lti/open/" not in answer.body
        assert 'href="/lti/login?iss=' in answer.body and 'target="_blank"' in answer.body  # a window of its own
    assert launch(tool, fields, pending.cookie).status == 200  # the state was not spent by those


def test_a_framed_launch_begins_again_in_a_window_of_its_own(tool: str, platform: Platform) -> None:
    """In a frame of the LMS page, cookies set by the tool may be partitioned or dropped: the launch is checked,
    opens no session there, and links to its login initiation again, in a new window."""
    pending = login(tool, platform, "lti-s1")
    answer = launch(tool, authorize(pending)[1], pending.cookie, **{"Sec-Fetch-Dest": "iframe"})
    assert answer.status == 200 and "window of its own" in answer.body and "/lti/open/" not in answer.body
    start = answer.body.index('href="/lti/login?') + len('href="')
    relaunch = answer.body[start:answer.body.index('"', start)].replace("&amp;", "&")
    assert 'target="_blank"' in answer.body
    assert request(tool + relaunch).status == 302  # a fresh login, top-level this time


def test_login_initiation_is_checked(tool: str, platform: Platform, course: Path) -> None:
    for changes, words in (({"iss": "https://evil.example"}, "Unknown LMS"),
                           ({"client_id": "another"}, "Unknown registration"),
                           ({"lti_deployment_id": "1:other"}, "Unknown deployment"),
                           ({"target_link_uri": "https://evil.example/"}, "Not this server"),
                           ({"login_hint": None}, "Not a launch")):
        answer = initiate(tool, platform, "lti-s1", "rl-hw1", **changes)
        assert answer.status == 400 and words in answer.body and not answer.cookies, (changes, answer.body)
    assert initiate(tool, platform, "lti-s1", "rl-" + "x" * 70_000).status == 413
    long = initiate(tool, platform, "lti-s1", "rl-" + "x" * 3000)
    assert long.status == 400 and "too long" in long.body
    # what the store keeps of a login is its few parameters, whatever else the request carries
    assert initiate(tool, platform, "lti-s1", "rl-hw1", **{f"junk{i}": "x" * 2000 for i in range(20)}).status == 302
    with sqlite3.connect(course / "server" / "course.db") as db:
        assert max(len(login) for (login,) in db.execute("SELECT login FROM lti_states")) < 1000


def test_an_institution_instructor_is_a_student_in_this_course(tool: str, platform: Platform) -> None:
    """Canvas sends institution/person#Instructor for anyone who teaches anywhere: a student who teaches another
    course must not get this course's instructor page (every student's code)."""
    platform.users["lti-s2"]["roles"] = [LEARNER, "http://purl.imsglobal.org/vocab/lis/v2/institution/person#Instructor",
                                         "http://purl.imsglobal.org/vocab/lis/v2/system/person#Administrator"]
    try:
        session, destination = sign_in(tool, platform, "lti-s2")
    finally:
        platform.users["lti-s2"]["roles"] = [LEARNER]
    assert destination == "/me/assignments/hw1"
    assert request(f"{tool}/instructor", cookies={"grader_session": session}).status == 403


def test_a_launch_session_mints_no_other(tool: str, platform: Platform) -> None:
    session, _ = sign_in(tool, platform, "lti-s1")
    status, found = api(tool, "/api/login-link", session, "POST")
    assert status == 403 and "needs your token" in found["error"]


@pytest.mark.parametrize("store", ["sqlite", "postgresql"])
def test_a_login_begun_on_one_server_is_finished_on_another(platform: Platform, key_file: Path, tmp_path: Path,
                                                           store: str) -> None:
    """State and nonce live in the store: two servers of one course (behind one address) agree on them."""
    with contextlib.ExitStack() as stack:
        database = stack.enter_context(postgres()).url if store == "postgresql" else ""
        _two_servers(platform, key_file, tmp_path, database)


def _two_servers(platform: Platform, key_file: Path, tmp_path: Path, database: str) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    course = lti_course(tmp_path / "course", platform, key_file, deadline=DEADLINE, url=url, database=database)
    first, second = Server(course, workers=0, port=port).start(), Server(course, workers=0).start()
    platform.redirect_uris.add(f"{url}/lti/launch")
    try:
        pending = login(first.url, platform, "lti-s1")
        _, fields = authorize(pending)
        answer = launch(second.url, fields, pending.cookie)
        assert answer.status == 200, answer.body
        assert request(first.url + opener(answer), cookies=pending.cookie).status == 303
        assert launch(first.url, fields, pending.cookie).status == 403  # spent on the other server
    finally:
        first.stop()
        second.stop()


def test_a_browser_launch_across_two_sites_reaches_the_students_page(tool: str, platform: Platform) -> None:
    """Headless Chromium clicks the link in the LMS (lms.test, another site than the tool's 127.0.0.1): the login
    initiation is posted cross-site, the cookie that binds its state comes back with the cross-site form_post of
    the id_token, and the student's page for hw1 opens with its session."""
    start = f"{platform.browser_base}/launch?user=lti-s1&link=rl-hw1"
    with tempfile.TemporaryDirectory(prefix="chromium-profile-") as profile:
        done = subprocess.run([chromium(), *FLAGS, f"--user-data-dir={profile}",
                               "--host-resolver-rules=MAP lms.test 127.0.0.1", "--virtual-time-budget=15000",
                               "--dump-dom", start], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    dom = done.stdout
    assert "Autograd test course: Student s1" in dom and "all assignments" in dom and "hw1" in dom, dom[-3000:]
    assert platform.authorizations[-1]["login_hint"] == "lti-s1"


def test_a_login_over_plain_http_beyond_loopback_is_refused(tool: str, platform: Platform) -> None:
    """Browsers keep a Secure cookie from http only on loopback: elsewhere the state cookie would be dropped, so
    the server says what deployments need before a login begins."""
    answer = request(f"{tool}/lti/login", "POST", {"iss": platform.issuer, "login_hint": "lti-s1",
                                                   "target_link_uri": "http://grader.example.edu/lti/launch"},
                     headers={"Host": "grader.example.edu"})
    assert answer.status == 400 and "need https" in answer.body and "[lti] url" in answer.body
    assert not answer.cookies


def test_an_expired_login_finishes_nothing(tool: str, platform: Platform, course: Path) -> None:
    pending = login(tool, platform, "lti-s1")
    _, fields = authorize(pending)
    with sqlite3.connect(course / "server" / "course.db") as db:
        db.execute("UPDATE lti_states SET expires_at = ?", (time.time() - 1,))
    answer = launch(tool, fields, pending.cookie)
    assert answer.status == 403 and "expired or was used" in answer.body


def test_logins_under_way_are_bounded(tool: str, platform: Platform, course: Path) -> None:
    """Login initiation needs no credential: a flood of them fills the store up to MAX_PENDING, then waits."""
    from grader.service.lti.lti import MAX_PENDING

    later = time.time() + 3600
    with sqlite3.connect(course / "server" / "course.db") as db:
        db.executemany("INSERT INTO lti_states (digest, nonce, login, expires_at) VALUES (?, '', '{}', ?)",
                       [(f"flood-{i}", later) for i in range(MAX_PENDING)])
    try:
        answer = initiate(tool, platform, "lti-s1", "rl-hw1")
        assert answer.status == 503 and "Too many sign-ins" in answer.body and not answer.cookies
    finally:
        with sqlite3.connect(course / "server" / "course.db") as db:
            db.execute("DELETE FROM lti_states WHERE digest LIKE 'flood-%'")
    assert initiate(tool, platform, "lti-s1", "rl-hw1").status == 302
    too_big = request(f"{tool}/lti/launch", "POST", {"id_token": "x" * 70_000, "state": "y"})
    assert too_big.status == 413
