"""One LMS column per assignment, and no hidden verdict sent before its deadline: a real `grade
serve` on loopback with its worker and store, students submitting with the real `grade submit`, the
instructor's page (signed in by an LMS launch) and `grade gradebook --publish`, against the test
platform's line items service as Canvas and Moodle keep it (tests/ags_platform.py). Every cell of
every LMS column is checked."""

from __future__ import annotations

import contextlib
import html
import re
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from ags_platform import Platform, running
from lti_launch import USERS, lti_course, public_pem, request, serving, sign_in, tool_key
from service_helpers import SAMPLES, grade, postgres, wait_until

pytestmark = pytest.mark.slow
PAST = (datetime.now(UTC) - timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
LATER = (datetime.now(UTC) + timedelta(days=7)).strftime("%Y-%m-%dT%H:%M:%SZ")
HW2 = (
    f'\n[assignments.hw2]\nexercises = ["node-add"]\ndeadline = {PAST}\nlate = "penalty"\n'
    "penalty_per_day = 0.25\nmax_late_days = 3\n"
)
MUL, ADD = SAMPLES / "node-mul", SAMPLES / "node-add"


def _tokens(course: Path) -> dict[str, str]:
    done = grade("tokens", "--course", str(course), "--again")
    assert done.returncode == 0, done.stderr
    return {
        line.split(",")[0]: line.split(",")[-1].strip() for line in done.stdout.splitlines()[1:]
    }


def _submit(tool: str, token: str, path: Path) -> None:
    done = grade(
        "submit",
        str(path),
        env={"AUTOGRADER_SERVER": tool, "AUTOGRADER_TOKEN": token, "NO_COLOR": "1"},
        timeout=300,
    )
    assert done.returncode in (0, 1), done.stdout + done.stderr  # 1: points were lost


def _graded(course: Path, database: str = "") -> None:
    def idle() -> bool:
        if database:
            return True  # PostgreSQL: `grade submit` waited for each result
        with sqlite3.connect(course / "server" / "course.db") as db:
            return db.execute("SELECT count(*) FROM jobs WHERE state != 'done'").fetchone()[0] == 0

    wait_until(idle, 300, "the submissions to be graded")


def _publish(tool: str, session: str, assignment: str, confirm: str = "") -> str:
    """The instructor's "Send the scores to the LMS": the page it leads to (a confirmation, or the
    class page's notice)."""
    form = {"assignment": assignment, **({"confirm": confirm} if confirm else {})}
    answer = request(
        f"{tool}/instructor/publish", "POST", form, {"grader_session": session}, {"Origin": tool}
    )
    if answer.status != 303:
        return answer.body
    landed = request(tool + answer.header("location"), cookies={"grader_session": session})
    found = re.search(r'<p class="notice">([^<]*)</p>', landed.body)
    assert found is not None, landed.body[-2000:]
    return found.group(1)


def _cells(platform: Platform, resource_id: str) -> dict[str, float | None]:
    return {user: score.get("scoreGiven") for user, score in platform.column(resource_id).items()}


@pytest.fixture(scope="module")
def key_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tool_key(tmp_path_factory.mktemp("keys"))


def _platform(key_file: Path, flavour: str = "canvas") -> Platform:
    return Platform(
        client_id="grader-tool",
        key_id="tool-key-1",
        public_key=public_pem(key_file),
        users={k: dict(v) for k, v in USERS.items()},
        flavour=flavour,
    )


def test_each_assignment_reaches_its_own_column_from_the_page(
    key_file: Path, tmp_path: Path
) -> None:
    """hw2 published, then hw1, then hw2 again: each lands in its own column, made in the LMS's
    line items service (whose address the instructor's launch brought: lms.toml names none), and
    the third sends nothing, for hw2's column still holds hw2's scores."""
    with running(_platform(key_file)) as platform:
        course = lti_course(tmp_path / "course", platform, key_file, deadline=PAST, more=HW2)
        lms = course / "lms.toml"
        lms.write_text(
            "".join(
                line
                for line in lms.read_text().splitlines(keepends=True)
                if not line.startswith("lineitems")
            )
        )
        tokens = _tokens(course)
        with serving(course, platform, workers=1) as tool:
            session, _ = sign_in(tool, platform, "lti-prof")
            _submit(tool, tokens["s1"], MUL / "correct_lesson_style.py")
            _submit(tool, tokens["s2"], MUL / "swapped_slopes.py")
            _submit(tool, tokens["s1"], ADD / "correct_lesson_style.py")
            _graded(course)
            said = _publish(tool, session, "hw2")
            assert "2 score(s) sent to" in said and "(made)" in said, said
            said = _publish(tool, session, "hw1")
            assert "2 score(s) sent to" in said and "(made)" in said, said
            said = _publish(tool, session, "hw2")
            assert "0 score(s) sent to" in said and "2 unchanged" in said and "(found)" in said, (
                said
            )
        assert platform.problems == []
        assert [platform.items[n]["resourceId"] for n in platform.made] == ["hw2", "hw1"]
        # one day late, 25% off; s2's swapped slopes pass 1 of 10 points; s2 handed in no hw2
        assert _cells(platform, "hw1") == {"lti-s1": 7.5, "lti-s2": 0.75}
        assert _cells(platform, "hw2") == {"lti-s1": 7.5, "lti-s2": 0.0}
        assert platform.gradebook.get(42) is None  # the column made by hand is nobody's


def test_a_column_named_by_a_launch_or_course_toml_and_never_shared(
    key_file: Path, tmp_path: Path
) -> None:
    """Moodle, on PostgreSQL, with `grade gradebook --publish`: hw1's column is the one the LMS
    attached to its link (as an LMS assignment that launches the tool has), named by the link's
    launch; hw2's is found or made in the service. Two columns named for one assignment, or one
    for two, are refused, and nothing is sent."""
    with contextlib.ExitStack() as stack:
        database = stack.enter_context(postgres()).url
        platform = stack.enter_context(running(_platform(key_file, "moodle")))
        platform.items[7] = {
            "label": "Homework 1",
            "scoreMaximum": 10.0,
            "resourceLinkId": "rl-hw1",
        }
        course = lti_course(
            tmp_path / "course", platform, key_file, deadline=PAST, more=HW2, database=database
        )
        tokens = _tokens(course)
        with serving(course, platform, workers=1) as tool:
            sign_in(tool, platform, "lti-s2")  # the launch of hw1's link names its column
            _submit(tool, tokens["s1"], MUL / "correct_lesson_style.py")
            _submit(tool, tokens["s2"], ADD / "correct_lesson_style.py")

            def publish(assignment: str) -> tuple[int, str]:
                done = grade(
                    "gradebook",
                    assignment,
                    "--course",
                    str(course),
                    "--publish",
                    str(course / "lms.toml"),
                )
                return done.returncode, done.stdout + done.stderr

            code, out = publish("hw1")
            assert (
                code == 0
                and "2 score(s) sent to" in out
                and "the launch of its LMS link rl-hw1" in out
            ), out
            code, out = publish("hw2")
            assert code == 0 and "2 score(s) sent to" in out and "(made)" in out, out
            assert _cells(platform, "hw2") == {"lti-s1": 0.0, "lti-s2": 7.5}
            assert {u: s["scoreGiven"] for u, s in platform.gradebook[7].items()} == {
                "lti-s1": 7.5,
                "lti-s2": 0.0,
            }
            # another link of hw1, with a column of its own: which one is hw1's is not guessed
            platform.items[8] = {
                "label": "Homework 1 again",
                "scoreMaximum": 10.0,
                "resourceLinkId": "rl-hw1b",
            }
            platform.custom["rl-hw1b"] = {"assignment": "hw1"}
            sign_in(tool, platform, "lti-s1", "rl-hw1b")
            sent = len(platform.scores)
            code, out = publish("hw1")
            assert code != 0 and "hw1 has 2 LMS columns" in out and "[lti.lineitems]" in out, out
            # course.toml names hw1's: that one
            toml = course / "course.toml"
            toml.write_text(
                toml.read_text() + f'\n[lti.lineitems]\nhw1 = "{platform.item_url(8)}"\n'
            )
            code, out = publish("hw1")
            assert code == 0 and "course.toml [lti.lineitems]" in out, out
            # ...and one column for two assignments is refused at once
            toml.write_text(toml.read_text() + f'hw2 = "{platform.item_url(8)}"\n')
            code, out = publish("hw2")
            assert code != 0 and "one LMS column" in out and "hw1 and hw2" in out, out
            assert len(platform.scores) == sent + 2
    assert platform.problems == []


def test_publishing_before_the_deadline_asks_and_holds_the_hidden_verdicts(
    key_file: Path, tmp_path: Path
) -> None:
    """s1 and s2 both pass every public check (9 of 9 points); the hidden check is 1 more point.
    hw1's deadline has passed for s1, and s2 has an extension: their LMS score would tell s2
    what the hidden check gave. The page asks, says what each choice releases to how many, and
    by default sends s1's only."""
    with running(_platform(key_file)) as platform:
        more = f"\n[extensions.hw1]\ns2 = {LATER}\n"
        course = lti_course(tmp_path / "course", platform, key_file, deadline=PAST, more=more)
        tokens = _tokens(course)
        with serving(course, platform, workers=1) as tool:
            session, _ = sign_in(tool, platform, "lti-prof")
            _submit(tool, tokens["s1"], MUL / "correct_lesson_style.py")
            _submit(tool, tokens["s2"], MUL / "correct_lesson_style.py")
            _graded(course)
            page = html.unescape(_publish(tool, session, "hw1"))
            assert "has not passed for 1 of 3 students (1 by an extension)" in page, page
            assert "Send the 2 whose deadline has passed (hold back 1)" in page
            assert (
                "Send all 3: tell 1 their hidden checks' verdicts now" in page
                and platform.scores == []
            )
            said = _publish(tool, session, "hw1", "passed")
            assert "1 score(s) sent" in said and "1 held back" in said, said
            assert _cells(platform, "hw1") == {"lti-s1": 7.5}
            said = _publish(tool, session, "hw1", "all")
            assert "1 score(s) sent" in said and "1 unchanged" in said, said
        assert _cells(platform, "hw1") == {"lti-s1": 7.5, "lti-s2": 10.0}
        assert platform.problems == []
