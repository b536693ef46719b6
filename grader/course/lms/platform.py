"""The LMS's side of the tool's registration (lms.toml), and a client of
its services under the token of the OAuth 2 client-credentials grant.

The token comes from the platform's token endpoint, the tool authenticating with a JWT it signs
(RS256, PyJWT) as the 1EdTech Security Framework says: `iss` and `sub` the client id, `aud` the
token endpoint (or the platform's audience), `iat`, `exp`, a fresh `jti`, the key's `kid` in the
header; the scopes are the use's (AGS scores and line items: grader.course.lms.publish; Names
and Roles: grader.course.lms.nrps). The same file names the platform's OIDC side (issuer,
auth_url, jwks_url, deployment_ids) for the course server's LTI launch (grader.service.lti.lti).
"""

from __future__ import annotations

import json
import time
import tomllib
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

from grader.core.errors import GraderError

ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
#: how long the signed assertion is good for: long enough
#: for a slow platform, short enough to be useless later
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
    #: the platform's line items service (the AGS endpoint claim's
    #: `lineitems`), where each assignment's column is found or made
    lineitems: str = ""
    #: the launch's side (grade serve): the `iss` of the platform's id_tokens, its OIDC
    #: authorization endpoint, its key set, and the deployments of the tool this course accepts
    issuer: str = ""
    auth_url: str = ""
    jwks_url: str = ""
    deployment_ids: tuple[str, ...] = ()
    #: Names and Roles (grade roster sync): the
    #: context_memberships_url, if not the one a launch carried
    memberships_url: str = ""
    timeout: float = 30.0
    retries: int = 5
    #: seconds between retries grow from this (doubling), unless the platform says Retry-After
    backoff: float = 0.5


#: what the launch needs of the registration, beside what every use needs
LAUNCH_KEYS = ("issuer", "auth_url", "jwks_url", "deployment_ids")


def read_platform(path: Path, *, need: tuple[str, ...] = ()) -> Platform:
    """A TOML file: client_id, token_url, key_file (PEM, relative to the file), key_id,
    and what `need` names (LAUNCH_KEYS to launch); audience, lineitems, issuer, auth_url,
    jwks_url, deployment_ids (or one deployment_id) and memberships_url where given."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise GraderError(f"{path}: cannot read the platform's configuration ({exc}).") from None
    if "lineitem" in data:
        raise GraderError(
            f"{path}: lineitem names one LMS column for every assignment, so one assignment's "
            f"scores would overwrite another's. Remove it, and give lineitems = \"...\" (the "
            f"platform's line items service, where each assignment's column is found or made), or "
            f"name one column per assignment (course.toml's [lti.lineitems], grade publish lti "
            f"--lineitem): docs/class.md, Sending the scores to the LMS."
        )
    if "deployment_id" in data and "deployment_ids" not in data:
        data["deployment_ids"] = [data.pop("deployment_id")]
    deployments = data.get("deployment_ids", [])
    if not isinstance(deployments, list) or not all(isinstance(d, str) and d for d in deployments):
        raise GraderError(
            f"{path}: deployment_ids must be a list of the deployment ids the LMS shows, not "
            f"{deployments!r}."
        )
    required = ("client_id", "token_url", "key_file", "key_id", *need)
    missing = [k for k in required if not data.get(k)]
    if missing:
        raise GraderError(
            f"{path}: needs {', '.join(missing)} ({', '.join(required)}, from the tool's "
            f"registration in the LMS)."
        )
    for key in ("token_url", "lineitems", "audience", "auth_url", "jwks_url", "memberships_url"):
        if key in data and urlsplit(str(data[key])).scheme not in ("https", "http"):
            raise GraderError(f"{path}: {key} must be an http(s) URL, not {data[key]!r}.")
    key_file = (path.parent / str(data["key_file"])).resolve()
    try:
        private_key = key_file.read_text(encoding="utf-8")
    except OSError as exc:
        raise GraderError(f"{path}: key_file {key_file} cannot be read ({exc.strerror}).") from None
    return Platform(
        client_id=str(data["client_id"]),
        token_url=str(data["token_url"]),
        audience=str(data.get("audience") or data["token_url"]),
        private_key=private_key,
        key_id=str(data["key_id"]),
        lineitems=str(data.get("lineitems", "")),
        issuer=str(data.get("issuer", "")),
        auth_url=str(data.get("auth_url", "")),
        jwks_url=str(data.get("jwks_url", "")),
        deployment_ids=tuple(deployments),
        memberships_url=str(data.get("memberships_url", "")),
        timeout=float(data.get("timeout", 30.0)),
        retries=int(data.get("retries", 5)),
        backoff=float(data.get("backoff", 0.5)),
    )


class ServiceClient:
    """A platform's service (AGS scores, NRPS memberships) under one scope: one
    token for the run, fetched again once when the platform says it has expired."""

    def __init__(self, platform: Platform, scope: str) -> None:
        import urllib3

        self.platform = platform
        self.scope = scope
        # POST is retried too: a token request is harmless to repeat, and a Score with the same
        # timestamp is the same Score (AGS: a platform must not apply an update that is not newer).
        retry = urllib3.Retry(
            total=platform.retries,
            backoff_factor=platform.backoff,
            status_forcelist=(429, 500, 502, 503, 504),
            allowed_methods=frozenset({"GET", "POST"}),
            respect_retry_after_header=True,
            raise_on_status=False,
        )
        self.http = urllib3.PoolManager(
            retries=retry, timeout=urllib3.Timeout(total=platform.timeout)
        )
        self.token: str | None = None

    def get(self, url: str, accept: str, cap: int) -> tuple[int, dict[str, str], bytes]:
        """GET `url` with the bearer token: the status, the headers and at most `cap`
        bytes of the body (more is an error: a platform's answer is never that big)."""
        for attempt in range(2):
            if self.token is None:
                self.token = self._fetch_token()
            response = self._request(
                "GET",
                url,
                None,
                {"Accept": accept, "Authorization": f"Bearer {self.token}"},
                stream=True,
            )
            body = response.read(cap + 1)
            response.release_conn()
            if len(body) > cap:
                raise GraderError(
                    f"{url}: the platform's answer is over {cap // 1_000_000} MB; not read."
                )
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
            response = self._request(
                "POST",
                url,
                body,
                {"Content-Type": media_type, "Authorization": f"Bearer {self.token}"},
            )
            if response.status == 401 and attempt == 0:
                self.token = (
                    None  # expired or revoked: one more token, then what the platform says stands
                )
                continue
            return response.status, response.data.decode("utf-8", "replace")
        raise AssertionError("unreachable")

    def _fetch_token(self) -> str:
        import jwt

        now = int(time.time())
        claims = {
            "iss": self.platform.client_id,
            "sub": self.platform.client_id,
            "aud": self.platform.audience,
            "iat": now,
            "exp": now + ASSERTION_SECONDS,
            "jti": str(uuid.uuid4()),
        }
        try:
            assertion = jwt.encode(
                claims,
                self.platform.private_key,
                algorithm="RS256",
                headers={"kid": self.platform.key_id},
            )
        except (ValueError, TypeError, jwt.PyJWTError) as exc:
            raise GraderError(
                f"the tool's private key cannot sign the assertion ({exc}); key_file must hold an "
                f"RSA private key in PEM."
            ) from None
        body = urlencode(
            {
                "grant_type": "client_credentials",
                "client_assertion_type": ASSERTION_TYPE,
                "client_assertion": assertion,
                "scope": self.scope,
            }
        ).encode()
        response = self._request(
            "POST",
            self.platform.token_url,
            body,
            {"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"},
        )
        text = response.data.decode("utf-8", "replace")
        if response.status != 200:
            raise GraderError(
                f"{self.platform.token_url}: no access token ({response.status}: "
                f"{text[:200].strip()}); check client_id, key_id and the key registered in the LMS."
            )
        try:
            token = json.loads(text)["access_token"]
        except (ValueError, KeyError, TypeError):
            raise GraderError(
                f"{self.platform.token_url}: the answer holds no access_token: {text[:200]!r}."
            ) from None
        if not isinstance(token, str) or not token:
            raise GraderError(
                f"{self.platform.token_url}: the access_token is not a text: {token!r}."
            )
        return token

    def _request(
        self,
        method: str,
        url: str,
        body: bytes | None,
        headers: dict[str, str],
        stream: bool = False,
    ) -> Any:
        import urllib3

        try:
            return self.http.request(
                method, url, body=body, headers=headers, preload_content=not stream
            )
        except urllib3.exceptions.HTTPError as exc:
            raise GraderError(
                f"{url}: cannot reach the platform ({exc}); publish again later: what was sent "
                f"is recorded."
            ) from None
