"""grade publish lti: scores reach a small AGS platform (tests/ags_platform.py); a second publish sends nothing new."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from ags_platform import SCORE_SCOPE, SCORE_TYPE, Platform, running
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from grader.cli import main
from grader.course.lms.publish import scores_url

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "submissions" / "node-mul"
Capture = pytest.CaptureFixture[str]


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    path = tmp_path_factory.mktemp("keys") / "tool.pem"
    path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))
    public = key.public_key().public_bytes(serialization.Encoding.PEM,
                                           serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    return path, public


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three students who handed in work, and one on the roster who did not."""
    root = tmp_path_factory.mktemp("class")
    (root / "class").mkdir()
    for name in ("correct_lesson_style", "swapped_slopes", "overwrite"):
        shutil.copy(SAMPLES / f"{name}.py", root / "class" / f"{name}.py")
    (root / "roster.csv").write_text("submission,id,name\ncorrect_lesson_style.py,lti-101,A\nswapped_slopes.py,"
                                     "lti-102,B\noverwrite.py,lti-103,C\n,lti-104,D\n")
    assert main(["batch", str(root / "class"), "--out", str(root / "reports"), "--exercise", "node-mul", "--roster",
                 str(root / "roster.csv"), "-j", "1"]) == 0
    return root / "reports"


@pytest.fixture
def reports(graded: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "reports"
    shutil.copytree(graded, copy)
    return copy


@pytest.fixture
def platform(keys: tuple[Path, str]) -> Iterator[Platform]:
    with running(Platform(client_id="grader-tool", key_id="key-2025", public_key=keys[1])) as started:
        yield started


def config(tmp_path: Path, platform: Platform, keys: tuple[Path, str], **extra: object) -> Path:
    path = tmp_path / "platform.toml"
    values = {"client_id": platform.client_id, "token_url": platform.token_url, "key_file": str(keys[0]),
              "key_id": platform.key_id, "lineitem": platform.lineitem, "backoff": 0, **extra}
    path.write_text("".join(f"{k} = {json.dumps(v)}\n" for k, v in values.items()))
    return path


def publish(reports: Path, settings: Path) -> int:
    return main(["publish", "lti", str(reports), "--platform", str(settings)])


def test_scores_reach_the_line_item_as_the_spec_says(reports: Path, platform: Platform, keys: tuple[Path, str],
                                                      tmp_path: Path, capsys: Capture) -> None:
    assert publish(reports, config(tmp_path, platform, keys)) == 0
    assert "sent 4 scores" in capsys.readouterr().out
    assert platform.problems == []
    # one client-credentials grant, its JWT signed by the tool's key, for the score scope
    (form,) = platform.token_requests
    assert form["grant_type"] == "client_credentials" and form["scope"] == SCORE_SCOPE
    (claims,) = platform.assertions
    assert claims["iss"] == claims["sub"] == "grader-tool" and claims["aud"] == platform.token_url
    assert 0 < claims["exp"] - claims["iat"] <= 3600
    # each student's lti-score.json, to {line item}/scores with the query kept
    posts = [r for r in platform.requests if "/scores" in r[0]]
    assert {r[0] for r in posts} == {"/api/lti/courses/7/line_items/42/scores?course=7"}
    assert all(r[1]["Content-Type"] == SCORE_TYPE and r[1]["Authorization"] == "Bearer token-1" for r in posts)
    sent = {s["userId"]: s for s in platform.scores}
    for student in ("lti-101", "lti-102", "lti-103", "lti-104"):
        assert sent[student] == json.loads((reports / "students" / student / "lti-score.json").read_text())
    assert (sent["lti-101"]["scoreGiven"], sent["lti-102"]["scoreGiven"]) == (10, 1)
    assert sent["lti-104"] == {**sent["lti-104"], "scoreGiven": 0.0, "activityProgress": "Initialized"}


def test_a_second_publish_sends_only_what_changed(reports: Path, platform: Platform, keys: tuple[Path, str],
                                                  tmp_path: Path, capsys: Capture) -> None:
    settings = config(tmp_path, platform, keys)
    assert publish(reports, settings) == 0
    before = len(platform.requests)
    capsys.readouterr()
    assert publish(reports, settings) == 0
    assert len(platform.requests) == before  # not even a token: nothing to send
    out = capsys.readouterr().out
    assert "sent 0 scores" in out and "4 unchanged since the last publish" in out
    # a student graded again with a new score: only that one goes
    folder = reports / "students" / "lti-102" / "lti-score.json"
    score = json.loads(folder.read_text())
    folder.write_text(json.dumps({**score, "scoreGiven": 10.0, "timestamp": "2999-01-01T00:00:00.000+00:00"}))
    assert publish(reports, settings) == 0
    assert [s["userId"] for s in platform.scores[4:]] == ["lti-102"]
    record = json.loads((reports / "published" / "lti.json").read_text())
    assert sorted(record["lineitems"][platform.lineitem]) == ["lti-101", "lti-102", "lti-103", "lti-104"]


def test_a_busy_platform_is_retried_and_an_expired_token_renewed(reports: Path, platform: Platform,
                                                                  keys: tuple[Path, str], tmp_path: Path) -> None:
    platform.fail_next = [503, 429, 401]
    assert publish(reports, config(tmp_path, platform, keys)) == 0
    assert len(platform.scores) == 4 and platform.problems == []
    assert len(platform.token_requests) == 2 and platform.assertions[0]["jti"] != platform.assertions[1]["jti"]


def test_a_refused_score_is_said_and_the_others_recorded(reports: Path, platform: Platform, keys: tuple[Path, str],
                                                          tmp_path: Path, capsys: Capture) -> None:
    platform.refuse = {"lti-103"}
    settings = config(tmp_path, platform, keys)
    assert publish(reports, settings) == 2
    err = capsys.readouterr().err
    assert "refused 1 of 4 scores (lti-103 (400:" in err and "3 were sent and recorded" in err
    platform.refuse = set()
    assert publish(reports, settings) == 0
    assert [s["userId"] for s in platform.scores].count("lti-103") == 1 and len(platform.scores) == 4


def test_a_grader_error_is_never_published(reports: Path, platform: Platform, keys: tuple[Path, str],
                                           tmp_path: Path, capsys: Capture) -> None:
    marker = reports / "students" / "lti-103" / "done.json"
    marker.write_text(json.dumps({**json.loads(marker.read_text()), "outcome": "grader-error", "error": "boom"}))
    assert publish(reports, config(tmp_path, platform, keys)) == 0
    assert "lti-103" not in {s["userId"] for s in platform.scores}
    assert "not sent (the grader failed on them): lti-103" in capsys.readouterr().out


def test_a_wrong_key_or_configuration_is_one_clear_line(reports: Path, platform: Platform, keys: tuple[Path, str],
                                                        tmp_path: Path, capsys: Capture) -> None:
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    wrong = tmp_path / "wrong.pem"
    wrong.write_bytes(other.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                          serialization.NoEncryption()))
    assert publish(reports, config(tmp_path, platform, (wrong, keys[1]))) == 2
    err = capsys.readouterr().err
    assert "no access token (400:" in err and "check client_id, key_id and the key registered" in err
    assert platform.scores == []
    broken = tmp_path / "broken.toml"
    broken.write_text('client_id = "x"\n')
    assert main(["publish", "lti", str(reports), "--platform", str(broken)]) == 2
    assert "needs token_url, key_file, key_id, lineitem" in capsys.readouterr().err


def test_the_scores_url_keeps_the_query() -> None:
    assert scores_url("https://lms.example/api/lti/courses/7/line_items/42?type=x") == \
        "https://lms.example/api/lti/courses/7/line_items/42/scores?type=x"
    assert scores_url("https://lms.example/li/42/") == "https://lms.example/li/42/scores"
