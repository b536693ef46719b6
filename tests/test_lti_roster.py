"""The roster from the LMS's Names and Roles service (`grade roster sync`, the real command against the test platform,
page by page), and the lifecycle of a launch's session: it ends when the student leaves the roster, when the
platform's deployment is no longer accepted, and at its absolute expiry."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from ags_platform import INSTRUCTOR, LEARNER, NRPS_SCOPE, Platform, running
from lti_launch import USERS, api, initiate, lti_course, public_pem, request, serving, sign_in, tool_key
from service_helpers import SAMPLES, Server, grade, instructor_token, wait_until

pytestmark = pytest.mark.slow
DEADLINE = (datetime.now(UTC) + timedelta(days=7)).strftime("%Y-%m-%dT%H:%M:%SZ")


@pytest.fixture(scope="module")
def key_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tool_key(tmp_path_factory.mktemp("keys"))


@pytest.fixture
def platform(key_file: Path) -> Iterator[Platform]:
    lms = Platform(client_id="grader-tool", key_id="tool-key-1", public_key=public_pem(key_file),
                   users={k: dict(v) for k, v in USERS.items()})
    with running(lms) as started:
        yield started
        assert started.problems == []


@pytest.fixture
def course(platform: Platform, key_file: Path, tmp_path: Path) -> Path:
    """A course whose CSV roster carries the SIS ids, and links LMS members by them."""
    return lti_course(tmp_path / "course", platform, key_file, deadline=DEADLINE, link_by="sis_user_id")


@pytest.fixture
def tool(platform: Platform, course: Path) -> Iterator[str]:
    with serving(course, platform) as url:
        yield url


def sync(course: Path, *args: str) -> tuple[int, str]:
    done = grade("roster", "sync", "--course", str(course), *args)
    return done.returncode, done.stdout + done.stderr


def students(course: Path) -> dict[str, tuple[str, str, str]]:
    with sqlite3.connect(course / "server" / "course.db") as db:
        return {i: (name, lti, role) for i, name, lti, role in db.execute(
            "SELECT id, name, lti_user_id, role FROM students")}


def test_the_roster_comes_from_names_and_roles_page_by_page(course: Path, tool: str, platform: Platform) -> None:
    code, out = sync(course)
    assert code != 0 and "Launch the tool once" in out  # no URL yet: the launch carries it
    assert "not on this course" in _refusal(tool, platform, "lti-stranger")
    sign_in(tool, platform, "lti-prof")  # the instructor's launch brings the context_memberships_url
    before = students(course)
    code, out = sync(course, "--dry-run")
    assert code == 0 and "would be added: lti-stranger" in out and students(course) == before
    code, out = sync(course)
    assert code == 0, out
    assert "5 member(s) on 3 page(s)" in out and "added: lti-stranger" in out and "linked: s3" in out
    assert "updated: s1, s2" in out
    after = students(course)
    assert after["s1"] == ("Ann One", "lti-s1", "student") and after["s3"] == ("Cat Three", "lti-s3", "student")
    assert after["lti-stranger"] == ("Sam Stranger", "lti-stranger", "student")
    assert after["lti:lti-prof"][1:] == ("lti-prof", "instructor")
    # the client-credentials grant for NRPS's scope; every page asked for as a membership container
    assert any(form["scope"] == NRPS_SCOPE for form in platform.token_requests)
    pages = [path for path in platform.gets if path.startswith("/memberships")]
    assert pages[-3:] == ["/memberships?course=7", "/memberships?course=7&page=2", "/memberships?course=7&page=3"]
    assert "/me/assignments/hw1" in sign_in(tool, platform, "lti-stranger")[1]  # now on the roster
    assert "/me/assignments/hw1" in sign_in(tool, platform, "lti-s3")[1]  # linked by SIS id
    # a CSV roster loaded again, without the LTI ids, keeps the ones the LMS gave
    assert grade("tokens", "--course", str(course)).returncode == 0
    assert students(course)["s3"][1] == "lti-s3"


def _refusal(tool: str, platform: Platform, user: str) -> str:
    from lti_launch import authorize, launch, login

    pending = login(tool, platform, user)
    return launch(tool, authorize(pending)[1], pending.cookie).body


def test_a_student_the_lms_no_longer_lists_loses_every_way_in(course: Path, tool: str, platform: Platform) -> None:
    sign_in(tool, platform, "lti-prof")
    session, _ = sign_in(tool, platform, "lti-s2")
    token = next(line.split(",")[-1] for line in grade("tokens", "--course", str(course), "--again").stdout
                 .splitlines() if line.startswith("s2,"))
    assert api(tool, "/api/status", session)[0] == 200
    platform.users["lti-s2"]["status"] = "Inactive"  # the student dropped the course
    code, out = sync(course)
    assert code == 0 and "removed (sign-in ended, tokens revoked): s2" in out, out
    assert api(tool, "/api/status", session)[0] == 401  # the launch's session ended with the roster entry
    assert request(f"{tool}/api/status", headers={"Authorization": f"Bearer {token}"}).status == 401
    assert students(course)["s2"][1] == "" and "not on this course" in _refusal(tool, platform, "lti-s2")
    assert api(tool, "/api/status", sign_in(tool, platform, "lti-s1")[0])[0] == 200  # the others stay


def test_a_classmates_email_or_sis_id_hands_over_no_roster_entry(course: Path, tool: str,
                                                                platform: Platform) -> None:
    """A student who sets a classmate's address (and name) in their LMS profile gets a roster entry of their own,
    never the classmate's; one whose SIS id names a roster entry already bound to another LMS user gets none: the
    collision is refused and reported."""
    sign_in(tool, platform, "lti-prof")
    platform.users["lti-evil"] = {"name": "Student s3", "email": "s3@example.edu", "roles": [LEARNER]}
    platform.users["lti-evil2"] = {"name": "Ann One", "email": "x@example.edu", "roles": [LEARNER],
                                   "sourcedid": "9001"}
    del platform.users["lti-s3"]  # s3, not linked yet, is the one whose address was taken
    code, out = sync(course)
    assert code == 0, out
    found = students(course)
    assert found["s3"][1] == "" and found["s1"][1] == "lti-s1"
    assert found["lti-evil"][1] == "lti-evil" and "lti-evil2" not in found
    refused = next(line for line in out.splitlines() if line.startswith("refused, a collision"))
    assert "lti-evil2 (" in refused and "'9001'" in refused and "lti-s1" not in refused, out


@pytest.mark.parametrize("link_by", ["lti_user_id", "sis_user_id"])
def test_an_sis_id_equal_to_a_classmates_gradebook_id_links_nothing(platform: Platform, key_file: Path,
                                                                   tmp_path: Path, link_by: str) -> None:
    """An LMS user whose SIS id is a classmate's gradebook id (s3, on the CSV roster and not linked yet) gets a row
    of their own whichever id kind the course links by, and their launch opens their own page: the sync took the
    SIS id against the roster's gradebook id too, and handed them s3's row, page and submissions."""
    course = lti_course(tmp_path / "course", platform, key_file, deadline=DEADLINE, link_by=link_by)
    platform.users["lti-evil"] = {"name": "Eve", "email": "eve@example.edu", "roles": [LEARNER], "sourcedid": "s3"}
    del platform.users["lti-s3"]
    with serving(course, platform) as tool:
        sign_in(tool, platform, "lti-prof")
        code, out = sync(course)
        assert code == 0, out
        found = students(course)
        assert found["s3"][1] == "" and found["lti-evil"][1] == "lti-evil", found
        session, _ = sign_in(tool, platform, "lti-evil")
        assert api(tool, "/api/status", session)[1]["student"] == "lti-evil"


@pytest.mark.parametrize("link_by", ["lti_user_id", "sis_user_id"])
def test_an_sis_id_that_would_link_two_ways_is_refused_and_reported(platform: Platform, key_file: Path,
                                                                    tmp_path: Path, link_by: str) -> None:
    """Linking by SIS id, two LMS members who both give s3's SIS id: neither is linked, both are reported. Linking
    by LMS user id, a member whose SIS id is an unlinked row's: no second row for it, and the report says how to
    link them."""
    course = lti_course(tmp_path / "course", platform, key_file, deadline=DEADLINE, link_by=link_by)
    if link_by == "sis_user_id":
        platform.users["lti-twin"] = {"name": "Cat Twin", "email": "twin@example.edu", "roles": [LEARNER],
                                      "sourcedid": "9003"}
    with serving(course, platform) as tool:
        sign_in(tool, platform, "lti-prof")
        code, out = sync(course)
    assert code == 0, out
    found = students(course)
    assert found["s3"][1] == "" and "lti-twin" not in found and "lti-s3" not in found, found
    refused = next(line for line in out.splitlines() if line.startswith("refused"))
    if link_by == "sis_user_id":
        assert refused.count("2 LMS members give the SIS id '9003'") == 2 and "lti-twin" in refused, out
    else:
        assert "lti-s3 (roster row 's3' has their SIS id '9003'" in refused, out
        assert "give the row its lti_user_id, or link by SIS id" in refused, out


def test_two_linked_contexts_each_keep_their_names_and_roles(course: Path, tool: str, platform: Platform) -> None:
    """A course linked to two LMS contexts (the course, ctx-7, and a section, ctx-8): each launch keeps its own
    context's Names and Roles URL, and a sync reads both. A section-B launch last no longer makes the sync read
    section B alone and remove every section-A student (their tokens and sessions with them); a student is removed
    once no linked context lists them, and --dry-run shows that removal first."""
    toml = course / "course.toml"
    toml.write_text(toml.read_text().replace(f'context_id = "{platform.context_id}"',
                                             f'context_id = ["{platform.context_id}", "ctx-8"]')
                    .replace('"rl-hw1" = "hw1"', '"rl-hw1" = "hw1"\n"rl-hw1-b" = "hw1"'))
    platform.link_contexts["rl-hw1-b"] = "ctx-8"
    platform.users["lti-prof"]["contexts"] = [platform.context_id, "ctx-8"]
    platform.users["lti-b1"] = {"name": "Dee Bee", "email": "b1@example.edu", "roles": [LEARNER],
                                "contexts": ["ctx-8"]}
    wait_until(lambda: _launches(tool, platform, "lti-prof", "rl-hw1-b"), 10, "section B to be linked")
    session_a, _ = sign_in(tool, platform, "lti-s1")
    sign_in(tool, platform, "lti-prof")
    sign_in(tool, platform, "lti-prof", "rl-hw1-b")  # section B's launch comes last
    code, out = sync(course, "--dry-run")
    assert code == 0 and "removed" not in out and "would be added: lti-b1" in out, out
    code, out = sync(course)
    assert code == 0 and "removed" not in out and "2 linked LMS context(s)" in out, out
    assert api(tool, "/api/status", session_a)[0] == 200
    assert students(course)["lti-b1"][1] == "lti-b1" and students(course)["s2"][1] == "lti-s2"
    platform.users["lti-s2"]["contexts"] = ["ctx-8"]  # s2 moves to section B: still the course's
    platform.users["lti-s1"]["contexts"] = []  # s1 leaves both
    code, out = sync(course, "--dry-run")
    assert out.splitlines()[1] == "would be removed (sign-in ended, tokens revoked): s1", out
    code, out = sync(course)
    assert code == 0 and "removed (sign-in ended, tokens revoked): s1\n" in out, out
    assert api(tool, "/api/status", session_a)[0] == 401 and students(course)["s2"][1] == "lti-s2"
    pages = {path.split("&page")[0] for path in platform.gets if path.startswith("/memberships")}
    assert pages == {"/memberships?course=7", "/memberships?context=ctx-8"}, pages


def _launches(tool: str, platform: Platform, user: str, link: str) -> bool:
    from lti_launch import authorize, launch, login

    pending = login(tool, platform, user, link)
    answer = launch(tool, authorize(pending)[1], pending.cookie)
    return answer.status == 200 and "Signed in" in answer.body


def test_a_membership_that_cannot_be_trusted_changes_nothing(course: Path, tool: str, platform: Platform) -> None:
    sign_in(tool, platform, "lti-prof")
    before = students(course)
    platform.next_link = "http://evil.example:9/memberships?page=2"  # the bearer token would go with it
    code, out = sync(course)
    assert code != 0 and "another site" in out and students(course) == before
    platform.next_link = ""
    platform.users = {"lti-prof": {"name": "Pat Prof", "roles": [INSTRUCTOR]}}  # an LMS answering an empty course
    code, out = sync(course)
    assert code != 0 and "no active student" in out and students(course) == before


def test_removing_the_deployment_ends_its_sessions(course: Path, platform: Platform) -> None:
    server = Server(course, workers=0).start()
    platform.login_url = f"{server.url}/lti/login"
    platform.redirect_uris.add(f"{server.url}/lti/launch")
    try:
        session, _ = sign_in(server.url, platform, "lti-s1")
        assert api(server.url, "/api/status", session)[0] == 200
        with sqlite3.connect(course / "server" / "course.db") as db:
            (expires,) = db.execute("SELECT expires_at FROM sessions WHERE kind = 'lti'").fetchone()
        assert time.time() + 8 * 3600 - 60 < expires <= time.time() + 8 * 3600  # absolute: 8 hours from the launch
    finally:
        server.stop()
    lms = course / "lms.toml"
    lms.write_text(lms.read_text().replace(f'["{platform.deployment_id}"]', '["1:another-deployment"]'))
    server = Server(course, workers=0).start()
    try:
        assert api(server.url, "/api/status", session)[0] == 401
        assert "Unknown deployment" in initiate(server.url, platform, "lti-s1", "rl-hw1").body
    finally:
        server.stop()
    with sqlite3.connect(course / "server" / "course.db") as db:
        assert db.execute("SELECT count(*) FROM sessions WHERE kind = 'lti'").fetchone() == (0,)
        assert db.execute("SELECT count(*) FROM lti_platforms").fetchone() == (1,)


def test_a_deployment_removed_while_the_server_runs_ends_its_sessions_at_once(course: Path, tool: str,
                                                                             platform: Platform) -> None:
    """lms.toml edited under a running `grade serve`: the removed deployment's session is refused and its launches
    too, with no restart; put back, it takes launches again, and the old session stays ended."""
    session, _ = sign_in(tool, platform, "lti-s1")
    assert api(tool, "/api/status", session)[0] == 200
    lms = course / "lms.toml"
    kept = lms.read_text()
    lms.write_text(kept.replace(f'["{platform.deployment_id}"]', '["1:another-deployment"]'))
    time.sleep(0.6)  # past grader.service.live_course.LOOK_EVERY: the next request looks at the files before anything
    assert api(tool, "/api/status", session)[0] == 401
    assert "Unknown deployment" in initiate(tool, platform, "lti-s1", "rl-hw1").body
    lms.write_text("deployment_ids = 7\n" + kept)  # a broken edit: no registration is trusted, launches close
    time.sleep(1)
    assert "LMS launches are closed" in initiate(tool, platform, "lti-s1", "rl-hw1").body
    lms.write_text(kept)
    wait_until(lambda: initiate(tool, platform, "lti-s2", "rl-hw1").status == 302, 10,
               "the deployment to be taken again")
    assert api(tool, "/api/status", session)[0] == 401
    assert api(tool, "/api/status", sign_in(tool, platform, "lti-s2")[0])[0] == 200


@pytest.mark.parametrize("case", ["no deployment", "registration moved away", "edited while a restart waits",
                                  "course.toml unreadable"])
def test_a_registration_that_cannot_be_trusted_admits_no_launch_and_ends_its_sessions(
        course: Path, tool: str, platform: Platform, case: str) -> None:
    """Under a running server: lms.toml listing no deployment, moved away, or edited to drop the deployment while an
    edit of course.toml waits for a restart; or course.toml that cannot be read. A launch's session ends within a
    look, new launches are refused, and the instructor's page says why. Each kept the old registration in force
    (the reload kept the whole configuration on any error; an empty list read as missing; an edit waiting for a
    restart held the registration's back), and the session went on."""
    session, _ = sign_in(tool, platform, "lti-s1")
    prof = instructor_token(course)
    assert api(tool, "/api/status", session)[0] == 200
    lms, toml = course / "lms.toml", course / "course.toml"
    kept = lms.read_text()
    if case == "no deployment":
        lms.write_text(kept.replace(f'["{platform.deployment_id}"]', "[]"))
    elif case == "registration moved away":
        lms.rename(course / "lms.toml.old")
    elif case == "edited while a restart waits":
        toml.write_text(toml.read_text().replace('isolation = "landlock"', 'isolation = "none"'))
        wait_until(lambda: "needs a restart" in _instructor_page(tool, prof), 10, "the restart to be asked for")
        lms.write_text(kept.replace(f'["{platform.deployment_id}"]', '["1:another-deployment"]'))
    else:
        toml.write_text(toml.read_text() + "\n[assignments.hw1\n")
    wait_until(lambda: api(tool, "/api/status", session)[0] == 401, 10, "the launch's session to end")
    refused = initiate(tool, platform, "lti-s2", "rl-hw1")
    assert refused.status in (400, 503) and ("closed" in refused.body or "Unknown deployment" in refused.body)
    page = _instructor_page(tool, prof)
    assert ("needs a restart" in page) if case == "edited while a restart waits" else \
        ("LMS launches are closed" in page), page[-2000:]
    with sqlite3.connect(course / "server" / "course.db") as db:
        assert db.execute("SELECT count(*) FROM sessions WHERE kind = 'lti'").fetchone() == (0,)


def _instructor_page(tool: str, token: str) -> str:
    return request(f"{tool}/instructor", headers={"Authorization": f"Bearer {token}"}).body


def test_a_registration_edit_the_store_cannot_follow_waits_and_is_tried_again(
        course: Path, platform: Platform, monkeypatch: pytest.MonkeyPatch) -> None:
    """Were the new registration to apply before the store's deployments follow it, a removed deployment's sessions
    would live on: while the store refuses (locked, gone), the registration in force stays, and the server says so."""
    from sqlalchemy.exc import OperationalError

    from grader.service import live_course
    from grader.service.config import load_course

    monkeypatch.setattr(live_course, "LOOK_EVERY", 0.0)
    followed: list[object] = []

    def follow(settings: object) -> None:
        followed.append(settings)
        if len(followed) == 1:
            raise OperationalError("INSERT", {}, Exception("database is locked"))

    said: list[str] = []
    watched = live_course.LiveCourse(load_course(course), said.append, follow)
    lms = course / "lms.toml"
    lms.write_text(lms.read_text().replace(f'["{platform.deployment_id}"]', '["1:another-deployment"]'))
    lti = watched.current().lti
    assert lti is not None and lti.platform.deployment_ids == (platform.deployment_id,)
    assert "could not follow it" in str(watched.problem) and said[-1] == watched.problem
    lti = watched.current().lti
    assert lti is not None and lti.platform.deployment_ids == ("1:another-deployment",) and watched.problem is None
    assert len(followed) == 2


def test_an_expired_launch_session_opens_nothing(course: Path, tool: str, platform: Platform) -> None:
    session, _ = sign_in(tool, platform, "lti-s1")
    with sqlite3.connect(course / "server" / "course.db") as db:
        db.execute("UPDATE sessions SET expires_at = ? WHERE kind = 'lti'", (time.time() - 1,))
    assert api(tool, "/api/status", session)[0] == 401


def test_the_lms_roster_reaches_the_gradebook_and_the_scores_go_back(course: Path, platform: Platform) -> None:
    """LTI end to end: s3, on the CSV roster without an LTI id, is linked by Names and Roles, launches, submits
    with their token, and their counted score goes back to the LMS under the LTI id the sync gave (AGS)."""
    with serving(course, platform, workers=1) as tool:
        sign_in(tool, platform, "lti-prof")
        assert sync(course)[0] == 0
        session, _ = sign_in(tool, platform, "lti-s3")
        token = next(line.split(",")[-1] for line in grade("tokens", "--course", str(course), "--again").stdout
                     .splitlines() if line.startswith("s3,"))
        done = grade("submit", str(SAMPLES / "node-mul" / "correct_lesson_style.py"), "--exercise", "node-mul",
                     env={"AUTOGRADER_SERVER": tool, "AUTOGRADER_TOKEN": token, "NO_COLOR": "1"}, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        assert api(tool, "/api/history", session)[1]["submissions"][0]["outcome"] == "graded"
    # hw1's deadline is a week away: its scores are held back, unless the instructor releases the hidden verdicts
    done = grade("gradebook", "hw1", "--course", str(course), "--publish", str(course / "lms.toml"))
    assert done.returncode == 0 and "held back: lti-stranger, s1, s2, s3:" in done.stdout, done.stdout + done.stderr
    assert platform.scores == []
    done = grade("gradebook", "hw1", "--course", str(course), "--publish", str(course / "lms.toml"),
                 "--release-hidden")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "releasing the hidden checks' results of 4 of 4 students" in done.stdout
    sent = {score["userId"]: score.get("scoreGiven") for score in platform.scores}
    assert sent["lti-s3"] == 10.0 and "s3" not in sent
