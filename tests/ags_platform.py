"""A small LTI 1.3 platform for the tests: an OAuth 2 token endpoint and one AGS line item, on 127.0.0.1.

It checks what a real platform must, from the specifications: the token request is the
client-credentials grant with a JWT client assertion (1EdTech Security Framework 1.0, section 4.1:
grant_type, client_assertion_type, client_assertion, scope; the JWT signed RS256 by the registered key,
its kid in the header, iss and sub the client id, aud the token endpoint, exp, iat and a jti never seen
before); a Score (LTI AGS 2.0, Score publish service) is POSTed to the line item's URL with /scores
appended and its query kept, as application/vnd.ims.lis.v1.score+json, with a bearer token granted the
score scope, and holds a userId, activityProgress and gradingProgress from the spec's lists, a timestamp
with sub-second precision, and a scoreMaximum above 0 with any scoreGiven. A score not newer than the
last one for its user is ignored, as the spec requires.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import jwt

SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
SCORE_TYPE = "application/vnd.ims.lis.v1.score+json"
ACTIVITY = {"Initialized", "Started", "InProgress", "Submitted", "Completed"}
GRADING = {"FullyGraded", "Pending", "PendingManual", "Failed", "NotReady"}
TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d+(Z|[+-]\d{2}:\d{2})")


@dataclass
class Platform:
    client_id: str
    key_id: str
    public_key: str
    base: str = ""
    lineitem_path: str = "/api/lti/courses/7/line_items/42"
    #: every request, as (path, headers, body)
    requests: list[tuple[str, dict[str, str], bytes]] = field(default_factory=list)
    token_requests: list[dict[str, str]] = field(default_factory=list)
    assertions: list[dict[str, Any]] = field(default_factory=list)
    scores: list[dict[str, Any]] = field(default_factory=list)
    #: the latest accepted timestamp per user
    latest: dict[str, str] = field(default_factory=dict)
    #: statuses to answer the next score POSTs with, before accepting (503, 429, 401...)
    fail_next: list[int] = field(default_factory=list)
    #: users whose scores are refused with 400
    refuse: set[str] = field(default_factory=set)
    problems: list[str] = field(default_factory=list)
    tokens: set[str] = field(default_factory=set)

    @property
    def token_url(self) -> str:
        return f"{self.base}/login/oauth2/token"

    @property
    def lineitem(self) -> str:
        return f"{self.base}{self.lineitem_path}?course=7"


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


def _handler(platform: Platform) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            platform.requests.append((self.path, dict(self.headers), body))
            url = urlsplit(self.path)
            if url.path == "/login/oauth2/token":
                self._token(body)
            elif url.path == platform.lineitem_path + "/scores" and parse_qs(url.query) == {"course": ["7"]}:
                self._score(body)
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
            if SCORE_SCOPE not in form.get("scope", "").split():
                problems.append(f"scope {form.get('scope')!r}")
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
            self._answer(200, {"access_token": token, "token_type": "bearer", "expires_in": 3600,
                               "scope": SCORE_SCOPE})

        def _score(self, body: bytes) -> None:
            authorization = self.headers.get("Authorization", "")
            if not authorization.startswith("Bearer ") or authorization[7:] not in platform.tokens:
                self._answer(401, {"error": "invalid token"})
                return
            if platform.fail_next:
                status = platform.fail_next.pop(0)
                if status == 401:
                    platform.tokens.discard(authorization[7:])  # as if it expired
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
            if score["timestamp"] > platform.latest.get(score["userId"], ""):  # only newer scores apply
                platform.latest[score["userId"]] = score["timestamp"]
                platform.scores.append(score)
            self._answer(200, {"resultUrl": f"{platform.lineitem}/results/{score['userId']}"})

        def _answer(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

    return Handler


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
