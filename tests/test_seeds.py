"""Seeds drawn from a course secret and the submission: stable, secret-dependent, and turned back from the token."""

from __future__ import annotations

import pytest

from grader.core.seeds import SEED_SPACE, new_secret, seed_from_token, submission_seed


def test_the_same_bytes_get_the_same_seed_and_the_token_turns_back_into_it() -> None:
    secret = new_secret().encode()
    first, again = submission_seed(secret, b"class Node: ..."), submission_seed(secret, b"class Node: ...")
    assert first == again
    assert 0 <= first.seed < SEED_SPACE
    assert seed_from_token(secret, first.token) == first.seed


def test_another_secret_or_another_submission_gives_another_seed() -> None:
    secret, other = new_secret().encode(), new_secret().encode()
    seed = submission_seed(secret, b"a")
    assert submission_seed(other, b"a").seed != seed.seed
    assert submission_seed(other, b"a").token == seed.token  # the token alone says nothing about the seed
    assert submission_seed(secret, b"b").seed != seed.seed


def test_short_secrets_and_malformed_tokens_are_refused() -> None:
    with pytest.raises(ValueError, match="at least 16 bytes"):
        submission_seed(b"short", b"a")
    with pytest.raises(ValueError, match="not a seed token"):
        seed_from_token(new_secret().encode(), "s1-../../etc")
