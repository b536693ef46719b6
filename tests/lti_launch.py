"""For the LTI launch tests: a course whose course.toml takes launches from the test platform (tests/ags_platform.py),
and the launch driven over HTTP as a browser drives it, cookies by hand (so that each test says which it sends)."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from ags_platform import INSTRUCTOR, LEARNER, Platform, form_fields
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from service_helpers import Server, course_folder, grade

#: LMS users: three students on the roster (s3 by SIS id only), an instructor, and one the roster does not know
USERS: dict[str, dict[str, Any]] = {
    "lti-s1": {"name": "Ann One", "email": "s1@example.edu", "roles": [LEARNER], "sourcedid": "9001"},
    "lti-s2": {"name": "Bob Two", "email": "s2@example.edu", "roles": [LEARNER], "sourcedid": "9002"},
    "lti-s3": {"name": "Cat Three", "email": "s3@example.edu", "roles": [LEARNER], "sourcedid": "9003"},
    "lti-prof": {"name": "Pat Prof", "email": "prof@example.edu", "roles": [INSTRUCTOR]},
    "lti-stranger": {"name": "Sam Stranger", "email": "sam@example.edu", "roles": [LEARNER]},
}
#: the gradebook ids s1, s2, s3; their SIS ids 9001-9003, as the LMS gives them (lis_person_sourcedid)
ROSTER = ("id,name,email,lti_user_id,sis_user_id\ns1,Student s1,s1@example.edu,lti-s1,9001\n"
          "s2,Student s2,s2@example.edu,lti-s2,9002\ns3,Student s3,s3@example.edu,,9003\n")


def tool_key(folder: Path) -> Path:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    path = folder / "tool.pem"
    path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))
    return path


def public_pem(key_file: Path) -> str:
    key = serialization.load_pem_private_key(key_file.read_bytes(), password=None)
    return key.public_key().public_bytes(serialization.Encoding.PEM,
                                         serialization.PublicFormat.SubjectPublicKeyInfo).decode()


def lti_course(folder: Path, platform: Platform, key_file: Path, *, deadline: str, url: str = "",
               registration: dict[str, object] | None = None, database: str = "", more: str = "",
               link_by: str = "") -> Path:
    """A course (hw1, node-mul) linked to `platform`'s context, its link rl-hw1 opening hw1, its roster loaded;
    `more`: course.toml's text before [lti] (another assignment); `link_by`: [lti] link_by, if given."""
    table = (f'{more}\n[lti]\nplatform = "lms.toml"\ncontext_id = "{platform.context_id}"\n'
             + (f'url = "{url}"\n' if url else "") + (f'link_by = "{link_by}"\n' if link_by else "")
             + '\n[lti.links]\n"rl-hw1" = "hw1"\n')
    course = course_folder(folder, deadline=deadline, students=[], extra=table)
    if database:
        (course / "course.toml").write_text(f'database = "{database}"\n' + (course / "course.toml").read_text())
    (course / "roster.csv").write_text(ROSTER)
    (course / "lms.toml").write_text(platform.registration(str(key_file), **(registration or {})))
    done = grade("tokens", "--course", str(course))
    assert done.returncode == 0, done.stderr
    return course


@contextmanager
def serving(course: Path, platform: Platform, workers: int = 0) -> Iterator[str]:
    """`grade serve` for `course`, registered with `platform` as its tool: its URL."""
    server = Server(course, workers=workers).start()
    platform.login_url = f"{server.url}/lti/login"
    platform.redirect_uris.add(f"{server.url}/lti/launch")
    try:
        yield server.url
    finally:
        server.stop()


@dataclass
class Answer:
    status: int
    headers: list[tuple[str, str]]
    body: str
    #: name -> (value, the attributes as written)
    cookies: dict[str, tuple[str, str]] = field(default_factory=dict)

    def header(self, name: str) -> str:
        return next((v for k, v in self.headers if k.lower() == name.lower()), "")


def request(url: str, method: str = "GET", form: dict[str, str] | None = None,
            cookies: dict[str, str] | None = None, headers: dict[str, str] | None = None) -> Answer:
    """One request, no redirect followed, no cookie sent but `cookies`."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=60)
    sent = dict(headers or {})
    body = urlencode(form).encode() if form is not None and method == "POST" else None
    target = parts.path + (f"?{parts.query}" if parts.query else "")
    if form is not None and method == "GET":
        target += ("&" if parts.query else "?") + urlencode(form)
    if body is not None:
        sent["Content-Type"] = "application/x-www-form-urlencoded"
    if cookies:
        sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in cookies.items())
    connection.request(method, target, body=body, headers=sent)
    response = connection.getresponse()
    answer = Answer(response.status, response.getheaders(), response.read().decode("utf-8", "replace"))
    connection.close()
    for name, value in answer.headers:
        if name.lower() == "set-cookie":
            pair, _, attributes = value.partition(";")
            key, _, cookie = pair.partition("=")
            answer.cookies[key.strip()] = (cookie.strip(), attributes.strip())
    return answer


@dataclass
class Pending:
    """A login initiation's answer: where the browser goes next, and the cookie it was given."""

    answer: Answer
    state: str
    nonce: str
    cookie: dict[str, str]

    @property
    def location(self) -> str:
        return self.answer.header("location")


def initiate(tool: str, platform: Platform, user: str, link: str, method: str = "POST",
             **changes: str | None) -> Answer:
    params: dict[str, str | None] = {
        "iss": platform.issuer, "login_hint": user, "target_link_uri": f"{tool}/lti/launch",
        "lti_message_hint": link, "client_id": platform.client_id, "lti_deployment_id": platform.deployment_id,
        **changes}
    return request(f"{tool}/lti/login", method, {k: v for k, v in params.items() if v is not None})


def login(tool: str, platform: Platform, user: str, link: str = "rl-hw1", method: str = "POST") -> Pending:
    answer = initiate(tool, platform, user, link, method)
    assert answer.status == 302, answer.body
    query = {k: v[0] for k, v in parse_qs(urlsplit(answer.header("location")).query).items()}
    cookie = {k: v for k, (v, _) in answer.cookies.items() if k.startswith("__Host-grader_lti_")}
    return Pending(answer, query["state"], query["nonce"], cookie)


def authorize(pending: Pending) -> tuple[str, dict[str, str]]:
    """What the platform's authorization endpoint has the browser post: (the action, its fields)."""
    answer = request(pending.location.replace("//lms.test:", "//127.0.0.1:"))  # the name Chromium maps
    assert answer.status == 200, answer.body
    return form_fields(answer.body)


def launch(tool: str, form: dict[str, str], cookie: dict[str, str], **headers: str) -> Answer:
    return request(f"{tool}/lti/launch", "POST", form, cookie, headers)


def opener(answer: Answer) -> str:
    """The one-time /lti/open/CODE link of a launch's page."""
    start = answer.body.index('href="/lti/open/') + len('href="')
    return answer.body[start:answer.body.index('"', start)]


def sign_in(tool: str, platform: Platform, user: str, link: str = "rl-hw1") -> tuple[str, str]:
    """A whole launch: (the session cookie's value, where it led)."""
    pending = login(tool, platform, user, link)
    _, fields = authorize(pending)
    answer = launch(tool, fields, pending.cookie)
    assert answer.status == 200, answer.body
    opened = request(tool + opener(answer), cookies=pending.cookie)
    assert opened.status == 303, opened.body
    return opened.cookies["grader_session"][0], opened.header("location")


def api(tool: str, path: str, session: str, method: str = "GET") -> tuple[int, Any]:
    # a POST as the server's own page makes it, naming it in Origin (grader.service.pages.origin refuses others)
    answer = request(tool + path, method, {} if method == "POST" else None, {"grader_session": session},
                     {"Origin": tool} if method == "POST" else None)
    try:
        return answer.status, json.loads(answer.body)
    except ValueError:
        return answer.status, answer.body
