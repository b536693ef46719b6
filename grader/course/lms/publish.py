"""Send a batch's scores to its assignment's own LMS column over LTI 1.3 Assignment and Grade Services (AGS).

The token comes from the platform's OAuth 2 token endpoint by the client-credentials grant, the tool
authenticating with a JWT it signs (RS256, PyJWT) as the 1EdTech Security Framework says: `iss` and
`sub` the client id, `aud` the token endpoint (or the platform's audience), `iat`, `exp`, a fresh `jti`,
the key's `kid` in the header; the scope is AGS's score scope (and its line item scope, where the column is
looked up). Each student's score (their lti-score.json) is POSTed to `{line item}/scores` as
application/vnd.ims.lis.v1.score+json. Busy platforms are retried (429 and 5xx, with Retry-After; a Score with
the same timestamp is safe to send again), an expired token is fetched again once.

Where the scores go is one rule: each assignment has a line item of its own, and one line item holds one
assignment. It is the one named for it (course.toml's [lti.lineitems], `--lineitem`, a launch of its link), else
the one the platform's line items service holds for it (grader.course.lms.lineitems: found by resourceId, or made).
Nothing names one: nothing is sent. What was sent is recorded per line item (REPORTS/published/lti.json, or the
course server's own record), with the assignment each line item holds: a second publish sends only the scores
that changed since, and a line item that holds another assignment's scores is refused.

The same registration file names the platform's OIDC side (issuer, auth_url, jwks_url, deployment_ids) for
the course server's LTI launch (grader.service.lti.lti), and its token serves Names and Roles too
(grader.course.lms.nrps): one `ServiceClient`, its scopes for each use.
"""

from __future__ import annotations

import hashlib
import json
import time
import tomllib
import uuid
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit, urlunsplit

from grader.core.errors import GraderError
from grader.course.lms.lineitems import LINEITEM_SCOPE, Column, find_or_make
from grader.outputs.formats.lti import SCORE_MEDIA_TYPE
from grader.outputs.layout import folder_of

SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
RECORD = Path("published") / "lti.json"
#: how long the signed assertion is good for: long enough for a slow platform, short enough to be useless later
ASSERTION_SECONDS = 300


@dataclass(frozen=True, slots=True, kw_only=True)
class Platform:
    """The LMS's side of the registration (from the tool's configuration in the LMS)."""

    client_id: str
    token_url: str
    #: the `aud` of the assertion: the token endpoint, unless the platform names another
    audience: str
    private_key: str
    key_id: str
    #: the platform's line items service (the AGS endpoint claim's `lineitems`), where each assignment's column
    #: is found or made
    lineitems: str = ""
    #: the launch's side (grade serve): the `iss` of the platform's id_tokens, its OIDC authorization endpoint,
    #: its key set, and the deployments of the tool this course accepts
    issuer: str = ""
    auth_url: str = ""
    jwks_url: str = ""
    deployment_ids: tuple[str, ...] = ()
    #: Names and Roles (grade roster sync): the context_memberships_url, if not the one a launch carried
    memberships_url: str = ""
    timeout: float = 30.0
    retries: int = 5
    #: seconds between retries grow from this (doubling), unless the platform says Retry-After
    backoff: float = 0.5


#: what the launch needs of the registration, beside what every use needs
LAUNCH_KEYS = ("issuer", "auth_url", "jwks_url", "deployment_ids")


def read_platform(path: Path, *, need: tuple[str, ...] = ()) -> Platform:
    """A TOML file: client_id, token_url, key_file (PEM, relative to the file), key_id, and what `need` names
    (LAUNCH_KEYS to launch); audience, lineitems, issuer, auth_url, jwks_url, deployment_ids (or one deployment_id)
    and memberships_url where given."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise GraderError(f"{path}: cannot read the platform's configuration ({exc}).") from None
    if "lineitem" in data:
        raise GraderError(f"{path}: lineitem names one LMS column for every assignment, so one assignment's "
                          f"scores would overwrite another's. Remove it, and give lineitems = \"...\" (the "
                          f"platform's line items service, where each assignment's column is found or made), or "
                          f"name one column per assignment (course.toml's [lti.lineitems], grade publish lti "
                          f"--lineitem): docs/class.md, Sending the scores to the LMS.")
    if "deployment_id" in data and "deployment_ids" not in data:
        data["deployment_ids"] = [data.pop("deployment_id")]
    deployments = data.get("deployment_ids", [])
    if not isinstance(deployments, list) or not all(isinstance(d, str) and d for d in deployments):
        raise GraderError(f"{path}: deployment_ids must be a list of the deployment ids the LMS shows, not "
                          f"{deployments!r}.")
    required = ("client_id", "token_url", "key_file", "key_id", *need)
    missing = [k for k in required if not data.get(k)]
    if missing:
        raise GraderError(f"{path}: needs {', '.join(missing)} ({', '.join(required)}, from the tool's "
                          f"registration in the LMS).")
    for key in ("token_url", "lineitems", "audience", "auth_url", "jwks_url", "memberships_url"):
        if key in data and urlsplit(str(data[key])).scheme not in ("https", "http"):
            raise GraderError(f"{path}: {key} must be an http(s) URL, not {data[key]!r}.")
    key_file = (path.parent / str(data["key_file"])).resolve()
    try:
        private_key = key_file.read_text(encoding="utf-8")
    except OSError as exc:
        raise GraderError(f"{path}: key_file {key_file} cannot be read ({exc.strerror}).") from None
    return Platform(client_id=str(data["client_id"]), token_url=str(data["token_url"]),
                    audience=str(data.get("audience") or data["token_url"]), private_key=private_key,
                    key_id=str(data["key_id"]), lineitems=str(data.get("lineitems", "")),
                    issuer=str(data.get("issuer", "")), auth_url=str(data.get("auth_url", "")),
                    jwks_url=str(data.get("jwks_url", "")), deployment_ids=tuple(deployments),
                    memberships_url=str(data.get("memberships_url", "")),
                    timeout=float(data.get("timeout", 30.0)), retries=int(data.get("retries", 5)),
                    backoff=float(data.get("backoff", 0.5)))


@dataclass(frozen=True, slots=True, kw_only=True)
class Target:
    """Where one assignment's scores go: the assignment (its column's resourceId) and its label, its line item
    where one is named for it, and the record of what was sent."""

    assignment: str
    label: str = ""
    #: the line item named for it, and by what (course.toml, --lineitem, a launch); "": the platform's
    #: line items service is asked
    lineitem: str = ""
    source: str = ""
    #: what was sent, per line item; None: REPORTS/published/lti.json
    record: Path | None = None


@dataclass(frozen=True, slots=True)
class Published:
    sent: list[str]
    unchanged: int
    skipped: list[str]
    #: the line item they went to, and how it was had (course.toml, found, made, ...)
    lineitem: str = ""
    how: str = ""
    #: students not sent because the caller holds them back (their deadline has not passed)
    held: list[str] = field(default_factory=list)


def publish_lti(reports: Path, platform: Platform, target: Target, *, held: Collection[str] = (),
                dry_run: bool = False, say: Callable[[str], None] = print) -> Published:
    """POST every student's changed score to the assignment's line item; record each one the platform took.
    `held`: ids of students whose scores are not sent now."""
    scores, skipped, kept = _scores(reports, held, say)
    maximum = max((float(s.get("scoreMaximum", 0) or 0) for s, _ in scores), default=1.0)
    client = ServiceClient(platform, SCORE_SCOPE if target.lineitem else f"{SCORE_SCOPE} {LINEITEM_SCOPE}")
    lineitem, how = _lineitem(client, platform, target, maximum, dry_run)
    record_path = target.record or reports / RECORD
    record = _read_record(record_path, lineitem, target.assignment) if lineitem else {}
    todo = [(score, digest) for score, digest in scores
            if record.get(score["userId"], {}).get("sha256") != digest]
    unchanged = len(scores) - len(todo)
    if dry_run or not todo:
        for score, _ in todo:
            say(f"would send {score['userId']}: {score.get('scoreGiven', '-')}/{score.get('scoreMaximum', '-')}")
        return Published([s["userId"] for s, _ in todo] if dry_run else [], unchanged, skipped, lineitem, how, kept)
    sent, refused = [], []
    for score, digest in todo:
        status, body = client.post(scores_url(lineitem), json.dumps(score).encode(), SCORE_MEDIA_TYPE)
        if status in (200, 201, 202, 204):
            record[score["userId"]] = {"sha256": digest, "timestamp": score["timestamp"], "status": status}
            # after each: a stopped run resends only the rest
            _write_record(record_path, lineitem, target.assignment, record)
            sent.append(score["userId"])
        else:
            refused.append(f"{score['userId']} ({status}: {body[:120].strip() or 'no reason given'})")
    if refused:
        raise GraderError(f"{lineitem}: the platform refused {len(refused)} of {len(todo)} scores "
                          f"({'; '.join(refused[:3])}{'; ...' if len(refused) > 3 else ''}); {len(sent)} were "
                          f"sent and recorded. Fix the cause and publish again: only what was not taken is sent.")
    return Published(sent, unchanged, skipped, lineitem, how, kept)


def _scores(reports: Path, held: Collection[str],
            say: Callable[[str], None]) -> tuple[list[tuple[dict[str, Any], str]], list[str], list[str]]:
    """Each sendable student's Score and its digest; the students skipped (grader errors) and held."""
    from grader.course.classfiles import finished_students
    from grader.course.manifest import read_manifest
    from grader.outputs.layout import MANIFEST

    folders = read_manifest(reports).folders if (reports / MANIFEST).is_file() else None
    rows = list(finished_students(reports, folders))  # the batch's own students, never another run's left behind
    # Where the roster gives LTI user ids, a student without one is not sent under the gradebook's id instead.
    with_lti = any(row.student.lti_user_id for row in rows)
    scores: list[tuple[dict[str, Any], str]] = []
    skipped: list[str] = []
    kept: list[str] = []
    no_lti: list[str] = []
    for row in rows:
        if row.outcome == "grader-error":  # a Score without scoreGiven clears the grade: never for our bug
            skipped.append(row.student.id)
        elif row.student.id in held:
            kept.append(row.student.id)
        elif with_lti and not row.student.lti_user_id:
            no_lti.append(row.student.id)
        else:
            path = folder_of(reports, row.student) / "lti-score.json"
            score = json.loads(path.read_text(encoding="utf-8"))
            scores.append((score, _digest(score)))
    if no_lti:
        say(f"not sent: {len(no_lti)} students have no lti_user_id in the roster ({', '.join(no_lti[:5])}"
            f"{' ...' if len(no_lti) > 5 else ''}); add them and grade again with --resume")
    return scores, skipped, kept


def _lineitem(client: ServiceClient, platform: Platform, target: Target, maximum: float,
              dry_run: bool) -> tuple[str, str]:
    """The assignment's line item and how it was had: the one named for it, else found or made in the
    platform's line items service. None: nothing is sent, and the error says where one comes from."""
    if target.lineitem:
        return target.lineitem, target.source
    if not platform.lineitems:
        raise GraderError(f"which LMS column is {target.assignment}'s? Nothing names one, and the grader does not "
                          f"guess: give the platform's line items service (lineitems = \"...\" in the "
                          f"registration file), or name the column (course.toml's [lti.lineitems], or grade "
                          f"publish lti --lineitem). Nothing was sent.")
    column = Column(target.assignment, target.label or target.assignment, maximum)
    found = find_or_make(client, platform.lineitems, column, make=not dry_run)
    if not found.url:
        return "", f"none yet: publishing makes one in {platform.lineitems}"
    return found.url, found.how


def scores_url(lineitem: str) -> str:
    """AGS: the line item's URL with /scores appended to its path, its query kept."""
    parts = urlsplit(lineitem)
    return urlunsplit(parts._replace(path=parts.path.rstrip("/") + "/scores"))


def _digest(score: dict[str, Any]) -> str:
    """What a score says, without when: the same grade graded again is not a change to send."""
    return hashlib.sha256(json.dumps({k: v for k, v in score.items() if k != "timestamp"},
                                     sort_keys=True).encode()).hexdigest()


def _read_record(path: Path, lineitem: str, assignment: str) -> dict[str, dict[str, Any]]:
    """What was sent to `lineitem`; refused if the record says it holds another assignment's scores."""
    data = _record(path)
    holds = data.get("assignments", {}).get(lineitem)
    if holds is not None and holds != assignment:
        raise GraderError(f"{lineitem} holds {holds}'s scores (sent from here, {path}), and one LMS column holds one "
                          f"assignment: {assignment}'s scores were not sent. Give {assignment} a column of its own "
                          f"(docs/class.md, Sending the scores to the LMS).")
    lineitems: dict[str, dict[str, dict[str, Any]]] = data.get("lineitems", {})
    return dict(lineitems.get(lineitem, {}))


def _record(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {"version": 1, "lineitems": {}, "assignments": {}}
    except (OSError, ValueError) as exc:
        raise GraderError(f"{path}: the record of what was published is damaged ({exc}); remove it to send every "
                          f"score again.") from None
    if not isinstance(data, dict) or not isinstance(data.get("lineitems"), dict):
        raise GraderError(f"{path}: the record of what was published is damaged; remove it to send every score "
                          f"again.")
    data.setdefault("assignments", {})
    return data


def _write_record(path: Path, lineitem: str, assignment: str, sent: dict[str, dict[str, Any]]) -> None:
    from grader.course.batch import atomic

    data = _record(path)
    data["lineitems"][lineitem] = dict(sorted(sent.items()))
    data["assignments"][lineitem] = assignment
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic(path, json.dumps(data, indent=2) + "\n", durable=True)


class ServiceClient:
    """A platform's service (AGS scores, NRPS memberships) under one scope: one token for the run, fetched again
    once when the platform says it has expired."""

    def __init__(self, platform: Platform, scope: str) -> None:
        import urllib3

        self.platform = platform
        self.scope = scope
        # POST is retried too: a token request is harmless to repeat, and a Score with the same timestamp
        # is the same Score (AGS: a platform must not apply an update that is not newer).
        retry = urllib3.Retry(total=platform.retries, backoff_factor=platform.backoff,
                              status_forcelist=(429, 500, 502, 503, 504),
                              allowed_methods=frozenset({"GET", "POST"}), respect_retry_after_header=True,
                              raise_on_status=False)
        self.http = urllib3.PoolManager(retries=retry, timeout=urllib3.Timeout(total=platform.timeout))
        self.token: str | None = None

    def get(self, url: str, accept: str, cap: int) -> tuple[int, dict[str, str], bytes]:
        """GET `url` with the bearer token: the status, the headers and at most `cap` bytes of the body (more is
        an error: a platform's answer is never that big)."""
        for attempt in range(2):
            if self.token is None:
                self.token = self._fetch_token()
            response = self._request("GET", url, None, {"Accept": accept, "Authorization": f"Bearer {self.token}"},
                                     stream=True)
            body = response.read(cap + 1)
            response.release_conn()
            if len(body) > cap:
                raise GraderError(f"{url}: the platform's answer is over {cap // 1_000_000} MB; not read.")
            if response.status == 401 and attempt == 0:
                self.token = None
                continue
            return response.status, {k.lower(): v for k, v in response.headers.items()}, body
        raise AssertionError("unreachable")

    def post(self, url: str, body: bytes, media_type: str) -> tuple[int, str]:
        """POST `body` as `media_type` with the bearer token: the status and the answer's text."""
        for attempt in range(2):
            if self.token is None:
                self.token = self._fetch_token()
            response = self._request("POST", url, body, {"Content-Type": media_type,
                                                         "Authorization": f"Bearer {self.token}"})
            if response.status == 401 and attempt == 0:
                self.token = None  # expired or revoked: one more token, then what the platform says stands
                continue
            return response.status, response.data.decode("utf-8", "replace")
        raise AssertionError("unreachable")

    def _fetch_token(self) -> str:
        import jwt

        now = int(time.time())
        claims = {"iss": self.platform.client_id, "sub": self.platform.client_id, "aud": self.platform.audience,
                  "iat": now, "exp": now + ASSERTION_SECONDS, "jti": str(uuid.uuid4())}
        try:
            assertion = jwt.encode(claims, self.platform.private_key, algorithm="RS256",
                                   headers={"kid": self.platform.key_id})
        except (ValueError, TypeError, jwt.PyJWTError) as exc:
            raise GraderError(f"the tool's private key cannot sign the assertion ({exc}); key_file must hold an "
                              f"RSA private key in PEM.") from None
        body = urlencode({"grant_type": "client_credentials", "client_assertion_type": ASSERTION_TYPE,
                          "client_assertion": assertion, "scope": self.scope}).encode()
        response = self._request("POST", self.platform.token_url, body,
                                 {"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"})
        text = response.data.decode("utf-8", "replace")
        if response.status != 200:
            raise GraderError(f"{self.platform.token_url}: no access token ({response.status}: "
                              f"{text[:200].strip()}); check client_id, key_id and the key registered in the LMS.")
        try:
            token = json.loads(text)["access_token"]
        except (ValueError, KeyError, TypeError):
            raise GraderError(f"{self.platform.token_url}: the answer holds no access_token: {text[:200]!r}.") from None
        if not isinstance(token, str) or not token:
            raise GraderError(f"{self.platform.token_url}: the access_token is not a text: {token!r}.")
        return token

    def _request(self, method: str, url: str, body: bytes | None, headers: dict[str, str],
                 stream: bool = False) -> Any:
        import urllib3

        try:
            return self.http.request(method, url, body=body, headers=headers, preload_content=not stream)
        except urllib3.exceptions.HTTPError as exc:
            raise GraderError(f"{url}: cannot reach the platform ({exc}); publish again later: what was sent "
                              f"is recorded.") from None
