"""The id_token of an LTI 1.3 launch, checked: its signature against the platform's
key set, then each claim that the 1EdTech Security Framework (5.1.3) and Core 1.3
(5.3) require of a resource link launch, each refusal in words for the person in
front of the browser. grader.service.lti.lti runs the login around it.

Why PyJWT's PyJWKClient rather than pylti1p3: pylti1p3 brings request, session, cookie and
cache adapters for Django and Flask, none of which this server (Starlette, with its own store
for state) would use, while the part that must not be written by hand, verifying an RS256 JWT
against a platform's rotating key set, is PyJWT's, which publishing already depends on.
PyJWKClient caches the key set, fetches it again for an unknown kid at most once per cooldown
(PyJWT 2.14), and binds the header's alg to the key's. The claims LTI adds are checked here.
"""

from __future__ import annotations

import hmac
from typing import Any, Protocol
from urllib.parse import urlsplit

from grader.service.lti.lti_config import LtiSettings

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
#: clock skew allowed between the platform and this server, on exp and iat
LEEWAY = 60
#: a resource link launch opens an assignment; a deep linking one adds assignments to the LMS course
#: (grader.service.lti.deep_linking), which has no resource link yet
MESSAGE_TYPES = ("LtiResourceLinkRequest", "LtiDeepLinkingRequest")


class Keys(Protocol):
    def get_signing_key(self, kid: str) -> Any: ...


class LaunchRefused(Exception):
    """A login or launch turned away: its HTTP status, and words for the person in front of the
    browser. Raised where it is refused, answered by the LTI page the request came to."""

    def __init__(
        self, status: int, title: str, message: str, *, setup: str = "", relaunch: str = ""
    ) -> None:
        super().__init__(message)
        self.status = status
        self.title = title
        self.message = message
        #: what to write where, for the instructor setting the course up
        self.setup = setup
        #: the login again, in a window of its own (where a frame kept the cookie from the
        #: browser)
        self.relaunch = relaunch


def check_claims(token: str, settings: LtiSettings, keys: Keys) -> dict[str, Any]:
    """The id_token's claims once its signature,
    issuer, audience and times hold (5.1.3 steps 1-7)."""
    import jwt

    platform = settings.platform
    try:
        header = jwt.get_unverified_header(token)
    except jwt.PyJWTError:
        raise bad_token("the id_token is not a JWT") from None
    if header.get("alg") != "RS256":  # never "none", never HS256 keyed with the public key
        raise bad_token(f"the id_token is signed with {short(str(header.get('alg')))}, not RS256")
    kid = header.get("kid")
    if not isinstance(kid, str) or not kid:
        raise bad_token("the id_token's header names no key (kid)")
    try:
        key = keys.get_signing_key(kid)
    except jwt.PyJWKClientConnectionError:
        why = f"{platform.jwks_url} did not answer; try again."
        raise LaunchRefused(502, "The LMS's keys cannot be fetched", why) from None
    except jwt.PyJWKClientError:
        raise bad_token("the id_token is signed with a key the LMS does not publish") from None
    try:
        claims: dict[str, Any] = jwt.decode(
            token,
            key,
            algorithms=["RS256"],
            audience=platform.client_id,
            issuer=platform.issuer,
            leeway=LEEWAY,
            options={"require": ["iss", "aud", "sub", "exp", "iat", "nonce"]},
        )
    except jwt.InvalidSignatureError:
        raise bad_token("the id_token's signature does not verify with the LMS's key") from None
    except jwt.ExpiredSignatureError:
        raise bad_token("the id_token has expired") from None
    except jwt.InvalidAudienceError:
        raise bad_token("the id_token is for another tool (aud)") from None
    except jwt.InvalidIssuerError:
        raise bad_token("the id_token comes from another LMS (iss)") from None
    except jwt.PyJWTError as exc:
        raise bad_token(f"the id_token does not hold: {short(str(exc))}") from None
    audience = claims["aud"]
    if isinstance(audience, list) and len(audience) > 1 and "azp" not in claims:
        raise bad_token("the id_token has several audiences and no azp")
    if "azp" in claims and claims["azp"] != platform.client_id:
        raise bad_token("the id_token was issued to another party (azp)")
    return claims


def check_launch(claims: dict[str, Any], settings: LtiSettings, nonce: str, tool_url: str) -> None:
    """Core 1.3's required claims of a resource link or deep
    linking launch, and the nonce this login kept (5.1.3 step 9)."""
    if not isinstance(claims["nonce"], str) or not hmac.compare_digest(claims["nonce"], nonce):
        raise bad_token("the id_token's nonce is not this sign-in's (a replayed launch)")
    deployment = claims.get(CLAIM + "deployment_id")
    if deployment not in settings.platform.deployment_ids:
        raise LaunchRefused(
            403,
            "Unknown deployment",
            "The LMS launched a deployment of the tool this course does not accept.",
            setup=f"add to deployment_ids in {settings.registration.name}: "
            f"{short(str(deployment))}",
        )
    kind = claims.get(CLAIM + "message_type")
    if kind not in MESSAGE_TYPES:
        raise LaunchRefused(
            400,
            "Not an assignment link",
            f"This tool opens assignment links (LtiResourceLinkRequest) "
            f"and adds them (LtiDeepLinkingRequest), not {short(str(kind))}.",
        )
    if claims.get(CLAIM + "version") != "1.3.0":
        raise bad_token(f"LTI version {short(str(claims.get(CLAIM + 'version')))}, not 1.3.0")
    link = claims.get(CLAIM + "resource_link")
    if kind == "LtiResourceLinkRequest" and (
        not isinstance(link, dict) or not isinstance(link.get("id"), str) or not link["id"]
    ):
        raise bad_token("the launch has no resource link id")
    if origin(str(claims.get(CLAIM + "target_link_uri", tool_url))) != origin(tool_url):
        raise bad_token("the launch is for another tool (target_link_uri)")
    if not isinstance(claims["sub"], str) or not claims["sub"]:
        raise bad_token("the launch names no user (sub)")
    context = claims.get(CLAIM + "context")
    context_id = context.get("id") if isinstance(context, dict) else None
    if not isinstance(context_id, str) or context_id not in settings.context_ids:
        raise LaunchRefused(
            403,
            "This LMS course is not linked to this course",
            "The grader takes launches only from the LMS course(s) its instructor named.",
            setup=f'in course.toml, [lti]: context_id = "{short(str(context_id))}"',
        )


def bad_token(why: str) -> LaunchRefused:
    return LaunchRefused(
        403,
        "The launch did not check out",
        f"{why[0].upper()}{why[1:]}. Open the assignment in the LMS "
        "again; if it goes on, tell your instructor.",
    )


def origin(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return parts.scheme.lower(), parts.netloc.lower()


def short(text: str) -> str:
    return text if len(text) <= 120 else text[:117] + "..."
