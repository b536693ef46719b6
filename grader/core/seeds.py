"""Seeds a student cannot table: drawn from a course secret
and the submission, and turned back by the instructor.

A fixed seed can be tabled: each report shows that seed's public inputs, and a student
who knows the seed can look the right answers up instead of computing them. A graded
run (a batch, the course server, an exported Gradescope autograder) therefore draws
each submission's seed with an HMAC of the submission under a secret only the course
holds. The report carries a token, the submission's own digest, from which the
instructor alone (holding the secret) recovers the seed with `seed_from_token`; the
same bytes always get the same seed, so a report reproduces with `grade FILE --seed N`.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

#: seeds are drawn below this bound, as `grade --seed` and the exported autograder always have
SEED_SPACE = 10**9
#: the shortest secret accepted: 128 bits, as hex or any other text
MIN_SECRET_BYTES = 16
_TOKEN = re.compile(r"s1-[0-9a-f]{32}")
_DOMAIN = b"autograd-grader/seed/v1\0"


@dataclass(frozen=True, slots=True)
class SubmissionSeed:
    """The seed one submission is graded with, and
    the token its report shows in the seed's place."""

    seed: int
    token: str


def new_secret() -> str:
    """A fresh course secret (256 bits, hex), for a course's config or `--secret-file`."""
    return secrets.token_hex(32)


def submission_seed(secret: bytes, content: bytes) -> SubmissionSeed:
    """The seed of a submission whose files are `content` (for several files, a digest of them all).

    The token is the submission's digest: the student may know it, but without the secret it says
    nothing about the seed.
    """
    token = "s1-" + hashlib.sha256(content).hexdigest()[:32]
    return SubmissionSeed(seed_from_token(secret, token), token)


def seed_from_token(secret: bytes, token: str) -> int:
    """The seed a report's token stands for: what the
    instructor runs `grade --seed` with to reproduce it."""
    if len(secret) < MIN_SECRET_BYTES:
        raise ValueError(f"a course secret needs at least {MIN_SECRET_BYTES} bytes")
    if not _TOKEN.fullmatch(token):
        raise ValueError(
            f"not a seed token: {token[:40]!r} (tokens look like s1- and 32 hex digits)"
        )
    digest = hmac.new(secret, _DOMAIN + token.encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") % SEED_SPACE


def secret_id(secret: bytes) -> str:
    """A name for a secret that says nothing of it: what a batch's manifest and fingerprint record,
    so that `--resume` and `grade merge` know shards drew their seeds from the same secret."""
    return hashlib.sha256(_DOMAIN + b"id\0" + secret).hexdigest()[:16]
