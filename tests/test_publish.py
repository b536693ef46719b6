"""grade publish lti: scores reach their assignment's own column of a small AGS platform (tests/ags_platform.py),
found or made in its line items service, as Canvas and Moodle keep them; a second publish sends nothing new."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from ags_platform import LINEITEM_SCOPE, SCORE_SCOPE, SCORE_TYPE, Platform, running
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from grader.cli import main
from grader.course.lms.links import next_page
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
              "key_id": platform.key_id, "lineitems": platform.lineitems, "backoff": 0, **extra}
    path.write_text("".join(f"{k} = {json.dumps(v)}\n" for k, v in values.items()))
    return path


def publish(reports: Path, settings: Path, *more: str) -> int:
    return main(["publish", "lti", str(reports), "--platform", str(settings), *more])


def test_scores_reach_the_line_item_as_the_spec_says(reports: Path, platform: Platform, keys: tuple[Path, str],
                                                      tmp_path: Path, capsys: Capture) -> None:
    assert publish(reports, config(tmp_path, platform, keys)) == 0
    out = capsys.readouterr().out
    assert "sent 4 scores" in out and "(made)" in out, out
    assert platform.problems == []
    # one client-credentials grant, its JWT signed by the tool's key, for the score and line item scopes
    (form,) = platform.token_requests
    assert form["grant_type"] == "client_credentials" and set(form["scope"].split()) == {SCORE_SCOPE, LINEITEM_SCOPE}
    (claims,) = platform.assertions
    assert claims["iss"] == claims["sub"] == "grader-tool" and claims["aud"] == platform.token_url
    assert 0 < claims["exp"] - claims["iat"] <= 3600
    # the batch's column: looked up by its resourceId (the exercise it graded), none there, so made once
    (made,) = platform.made
    assert platform.items[made] == {"label": "node-mul", "scoreMaximum": 10.0, "resourceId": "node-mul",
                                    "tag": "autograd-grader"}
    # each student's lti-score.json, to {line item}/scores
    posts = [r for r in platform.requests if r[0].endswith("/scores")]
    assert {r[0] for r in posts} == {f"/api/lti/courses/7/line_items/{made}/scores"}
    assert all(r[1]["Content-Type"] == SCORE_TYPE and r[1]["Authorization"] == "Bearer token-1" for r in posts)
    sent = platform.column("node-mul")
    for student in ("lti-101", "lti-102", "lti-103", "lti-104"):
        assert sent[student] == json.loads((reports / "students" / student / "lti-score.json").read_text())
    assert (sent["lti-101"]["scoreGiven"], sent["lti-102"]["scoreGiven"]) == (10, 1)
    assert sent["lti-104"] == {**sent["lti-104"], "scoreGiven": 0.0, "activityProgress": "Initialized"}
    assert platform.gradebook.get(42) is None  # the instructor's own column is nobody's to fill


def test_a_second_publish_sends_only_what_changed(reports: Path, platform: Platform, keys: tuple[Path, str],
                                                  tmp_path: Path, capsys: Capture) -> None:
    settings = config(tmp_path, platform, keys)
    assert publish(reports, settings) == 0
    capsys.readouterr()
    assert publish(reports, settings) == 0
    assert len(platform.scores) == 4 and len(platform.made) == 1  # found again, not made twice; nothing sent
    out = capsys.readouterr().out
    assert "sent 0 scores" in out and "(found)" in out and "4 unchanged since the last publish" in out
    # a student graded again with a new score: only that one goes
    folder = reports / "students" / "lti-102" / "lti-score.json"
    score = json.loads(folder.read_text())
    folder.write_text(json.dumps({**score, "scoreGiven": 10.0, "timestamp": "2999-01-01T00:00:00.000+00:00"}))
    assert publish(reports, settings) == 0
    assert [s["userId"] for s in platform.scores[4:]] == ["lti-102"]
    record = json.loads((reports / "published" / "lti.json").read_text())
    column = platform.item_url(platform.made[0])
    assert sorted(record["lineitems"][column]) == ["lti-101", "lti-102", "lti-103", "lti-104"]
    assert record["assignments"] == {column: "node-mul"}


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
    assert "needs token_url, key_file, key_id (" in capsys.readouterr().err


def test_the_scores_url_keeps_the_query() -> None:
    assert scores_url("https://lms.example/api/lti/courses/7/line_items/42?type=x") == \
        "https://lms.example/api/lti/courses/7/line_items/42/scores?type=x"
    assert scores_url("https://lms.example/li/42/") == "https://lms.example/li/42/scores"


def test_two_assignments_reach_two_columns(reports: Path, platform: Platform, keys: tuple[Path, str],
                                           tmp_path: Path, capsys: Capture) -> None:
    """One assignment's scores never land in another's column: each is found or made by its own resourceId."""
    other = tmp_path / "other"
    shutil.copytree(reports, other)
    shutil.rmtree(other / "published", ignore_errors=True)
    settings = config(tmp_path, platform, keys)
    assert publish(reports, settings) == 0
    assert publish(other, settings, "--assignment", "hw2") == 0
    assert publish(reports, settings) == 0  # again: found, nothing new
    assert [platform.items[n]["resourceId"] for n in platform.made] == ["node-mul", "hw2"]
    assert len(platform.column("node-mul")) == len(platform.column("hw2")) == 4 and len(platform.scores) == 8
    assert "sent 0 scores" in capsys.readouterr().out.splitlines()[-1]


def test_a_named_column_takes_the_scores_with_the_score_scope_only(reports: Path, platform: Platform,
                                                                   keys: tuple[Path, str], tmp_path: Path) -> None:
    platform.granted = {SCORE_SCOPE}  # a registration without the line item service
    assert publish(reports, config(tmp_path, platform, keys), "--lineitem", platform.lineitem) == 0
    assert len(platform.gradebook[42]) == 4 and platform.made == []
    assert [f["scope"] for f in platform.token_requests] == [SCORE_SCOPE]


def test_publishing_refuses_to_guess(reports: Path, platform: Platform, keys: tuple[Path, str], tmp_path: Path,
                                     capsys: Capture) -> None:
    # no service and no column named: nothing is sent, and the message says where a column comes from
    settings = config(tmp_path, platform, keys)
    settings.write_text(settings.read_text().replace(f'lineitems = "{platform.lineitems}"\n', ""))
    assert publish(reports, settings) == 2
    err = capsys.readouterr().err
    assert "which LMS column is node-mul's?" in err and "lineitems" in err and "--lineitem" in err
    # two columns claim the assignment: neither is chosen
    for label in ("Node mul", "Node mul (copy)"):
        platform.items[max(platform.items) + 1] = {"label": label, "scoreMaximum": 10.0, "resourceId": "node-mul"}
    assert publish(reports, config(tmp_path, platform, keys)) == 2
    assert "2 LMS columns are node-mul's" in capsys.readouterr().err
    # the old single line item for every assignment is refused, with the way out
    one = config(tmp_path, platform, keys, lineitem=platform.lineitem)
    assert publish(reports, one) == 2
    err = capsys.readouterr().err
    assert "lineitem names one LMS column for every assignment" in err and "[lti.lineitems]" in err
    assert platform.scores == [] and platform.made == []
    # a batch of several exercises, graded without --assignment, names no column by itself
    manifest = reports / "batch.json"
    manifest.write_text(manifest.read_text().replace('"node-mul"', '"node-mul", "node-add"', 1))
    assert publish(reports, config(tmp_path, platform, keys)) == 2
    assert "--assignment ID" in capsys.readouterr().err


def test_the_column_is_found_on_a_later_page(reports: Path, platform: Platform, keys: tuple[Path, str],
                                             tmp_path: Path) -> None:
    """The service filters by resource_id: one page holds the assignment's column."""
    platform.page_size = 2
    for number in range(50, 55):  # a platform that ignores resource_id would list these first
        platform.items[number] = {"label": f"other {number}", "scoreMaximum": 1.0, "resourceId": f"x{number}"}
    platform.items[60] = {"label": "node-mul", "scoreMaximum": 10.0, "resourceId": "node-mul"}
    assert publish(reports, config(tmp_path, platform, keys)) == 0
    assert platform.made == [] and len(platform.gradebook[60]) == 4
    listed = [path for path in platform.gets if path.startswith("/api/lti/courses/7/line_items")]
    assert listed == ["/api/lti/courses/7/line_items?resource_id=node-mul"]  # one page: the filter holds


def test_a_platform_ignoring_the_filter_is_paged_through(reports: Path, keys: tuple[Path, str],
                                                          tmp_path: Path) -> None:
    """Canvas lists line items a page at a time (Link rel="next"); what a page holds is checked here again."""
    with running(Platform(client_id="grader-tool", key_id="key-2025", public_key=keys[1], page_size=2,
                          filters=False)) as platform:
        for number in range(50, 55):
            platform.items[number] = {"label": f"other {number}", "scoreMaximum": 1.0, "resourceId": f"x{number}"}
        platform.items[60] = {"label": "node-mul", "scoreMaximum": 10.0, "resourceId": "node-mul"}
        assert publish(reports, config(tmp_path, platform, keys)) == 0
        assert platform.made == [] and len(platform.gradebook[60]) == 4
        assert len([p for p in platform.gets if p.startswith("/api/lti/courses/7/line_items")]) == 4


def test_moodle_keeps_its_type_id_on_every_url(reports: Path, keys: tuple[Path, str], tmp_path: Path) -> None:
    with running(Platform(client_id="grader-tool", key_id="key-2025", public_key=keys[1],
                          flavour="moodle")) as platform:
        assert publish(reports, config(tmp_path, platform, keys)) == 0
        assert publish(reports, config(tmp_path, platform, keys)) == 0
        (made,) = platform.made
        assert platform.problems == [] and len(platform.gradebook[made]) == 4
        scores = {r[0] for r in platform.requests if "/scores" in r[0]}
        assert scores == {f"/mod/lti/services.php/7/lineitems/{made}/lineitem/scores?type_id=3"}
        assert all("type_id=3" in path for path in platform.gets)


def test_a_next_page_on_another_site_is_not_followed(reports: Path, platform: Platform, keys: tuple[Path, str],
                                                     tmp_path: Path, capsys: Capture) -> None:
    platform.page_size, platform.next_link = 1, "http://attacker.example/line_items?page=2"
    for number in (50, 51):
        platform.items[number] = {"label": "x", "scoreMaximum": 1.0, "resourceId": "node-mul"}
    assert publish(reports, config(tmp_path, platform, keys)) == 2
    assert "goes to another site" in capsys.readouterr().err and platform.scores == []


def test_moodle_s_typographic_rel_is_a_next_link() -> None:
    base = "https://moodle.example/mod/lti/services.php/7/lineitems?type_id=3&limit=2"
    header = ("<https://moodle.example/x?from=0>; rel=\u201cfirst\u201d, <https://moodle.example/x?from=2>; "
              "rel=\u201cnext\u201d").encode().decode("latin-1")
    assert next_page(header, base) == "https://moodle.example/x?from=2"
    assert next_page('<https://c.example/li?page=2>; rel="next", <https://c.example/li?page=1>; rel="first"',
                     base) == "https://c.example/li?page=2"
    assert next_page('<https://c.example/li?page=9>; rel="last"', base) is None
