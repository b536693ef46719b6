"""LTI Deep Linking 2.0 into a real `grade serve` on loopback: an instructor adds assignments to the LMS course from
the LMS's "add content" dialog (the test platform, tests/ags_platform.py, checks each response as a platform must),
and the links it made open their assignments with no [lti.links] entry; a student, a forged request and a hostile
return address get nothing signed. The last test does it in headless Chromium, across two sites."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import jwt
import pytest
from ags_platform import DEEP_LINK, DL_CLAIM, Platform, running
from browser import browsing, person
from lti_launch import USERS, authorize, launch, login, lti_course, opener, public_pem, request, serving, tool_key
from service_helpers import grade

pytestmark = pytest.mark.slow
DEADLINE = (datetime.now(UTC) + timedelta(days=7)).strftime("%Y-%m-%dT%H:%M:%SZ")
HW2 = '\n[assignments.hw2]\nexercises = ["node-add"]\ndeadline = ' + DEADLINE + '\n'


@pytest.fixture(scope="module")
def key_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tool_key(tmp_path_factory.mktemp("keys"))


@pytest.fixture(scope="module")
def platform(key_file: Path) -> Iterator[Platform]:
    lms = Platform(client_id="grader-tool", key_id="tool-key-1", public_key=public_pem(key_file),
                   users={k: dict(v) for k, v in USERS.items()}, browser_host="lms.test")
    with running(lms) as started:
        yield started


@pytest.fixture(scope="module")
def tool(platform: Platform, key_file: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    course = lti_course(tmp_path_factory.mktemp("course"), platform, key_file, deadline=DEADLINE, more=HW2)
    with serving(course, platform) as url:
        yield url


@pytest.fixture(autouse=True)
def clean(platform: Platform) -> Iterator[None]:
    yield
    platform.override.clear()
    platform.deep_linking.clear()
    assert platform.problems == [], platform.problems
    platform.problems.clear()


def _picker(tool: str, platform: Platform, user: str = "lti-prof", **headers: str) -> tuple[int, str, dict[str, str]]:
    """The deep linking launch's page: its status, its text, and each button's label -> the JWT it posts."""
    pending = login(tool, platform, user, DEEP_LINK)
    answer = launch(tool, authorize(pending)[1], pending.cookie, **headers)
    buttons = {html.unescape(label): html.unescape(token) for token, label in re.findall(
        r'<input type="hidden" name="JWT" value="([^"]*)"><p><button>([^<]*)</button>', answer.body)}
    return answer.status, answer.body, buttons


def _post_back(platform: Platform, token: str) -> tuple[int, str]:
    answer = request(f"{platform.base}/deep_link_return", "POST", {"JWT": token})
    return answer.status, answer.body


def test_an_instructor_adds_an_assignment_and_its_link_opens_it(tool: str, platform: Platform) -> None:
    status, page, buttons = _picker(tool, platform)
    assert status == 200, page
    assert set(buttons) == {"Add hw1", "Add hw2", "Add every assignment", "Cancel"}
    assert f'action="{platform.browser_base}/deep_link_return"' in page and "Add to Autograd 101" in page
    assert "node-add" in page and "node-mul" in page  # what each assignment grades
    assert "grader_session" not in page and "/lti/open/" not in page  # it opens no session
    # the LMS checks the response (ags_platform.deep_link_problems) and makes the link
    status, body = _post_back(platform, buttons["Add hw2"])
    assert status == 200, body
    (item,) = platform.deep_links[-1]
    assert item["type"] == "ltiResourceLink" and item["title"] == "hw2"
    assert item["url"] == f"{tool}/lti/launch" and item["custom"] == {"assignment": "hw2"}
    # the link the LMS made opens hw2, for a student and for the instructor, with no [lti.links] entry for it
    pending = login(tool, platform, "lti-s1", item["link"])
    answer = launch(tool, authorize(pending)[1], pending.cookie)
    opened = request(tool + opener(answer), cookies=pending.cookie)
    assert opened.status == 303 and opened.header("location") == "/me/assignments/hw2"
    pending = login(tool, platform, "lti-prof", item["link"])
    answer = launch(tool, authorize(pending)[1], pending.cookie)
    assert request(tool + opener(answer), cookies=pending.cookie).header("location") == "/instructor?assignment=hw2"


def test_every_assignment_at_once_or_none(tool: str, platform: Platform) -> None:
    _, _, buttons = _picker(tool, platform)
    assert _post_back(platform, buttons["Add every assignment"])[0] == 200
    assert [i["custom"]["assignment"] for i in platform.deep_links[-1]] == ["hw1", "hw2"]
    _, _, buttons = _picker(tool, platform)
    status, body = _post_back(platform, buttons["Cancel"])
    assert status == 200 and platform.deep_links[-1] == [] and "Nothing was added." in body


def test_a_platform_that_takes_one_link_gets_one_and_its_data_back(tool: str, platform: Platform) -> None:
    platform.deep_linking.update({"accept_multiple": False, "data": "opaque <&> \"data\"", "title": None})
    status, page, buttons = _picker(tool, platform)
    assert status == 200 and set(buttons) == {"Add hw1", "Add hw2", "Cancel"}, page
    assert "Add an assignment to the LMS course" in page
    assert jwt.decode(buttons["Add hw1"], options={"verify_signature": False})[DL_CLAIM + "data"] == \
        "opaque <&> \"data\""
    assert _post_back(platform, buttons["Add hw1"])[0] == 200
    # without data, none is echoed
    platform.deep_linking["data"] = None
    _, _, buttons = _picker(tool, platform)
    assert DL_CLAIM + "data" not in jwt.decode(buttons["Add hw1"], options={"verify_signature": False})


def test_a_response_is_good_once_and_only_where_the_platform_sent_it(tool: str, platform: Platform) -> None:
    _, _, buttons = _picker(tool, platform)
    assert _post_back(platform, buttons["Add hw1"])[0] == 200
    status, body = _post_back(platform, buttons["Add hw1"])  # the platform refuses its nonce again
    assert status == 400 and "a nonce used before" in body
    platform.problems.clear()
    claims = jwt.decode(buttons["Add hw2"], options={"verify_signature": False})
    assert claims["aud"] == platform.issuer and claims["iss"] == "grader-tool"
    assert claims["exp"] - claims["iat"] <= 900  # as long as the picker says


@pytest.mark.parametrize("case", ["student", "no settings", "javascript return", "no resource links", "no roles"])
def test_no_response_is_signed_for_a_student_or_a_wrong_request(tool: str, platform: Platform, case: str) -> None:
    user = "lti-s1" if case == "student" else "lti-prof"
    if case == "no settings":
        platform.override[DL_CLAIM + "deep_linking_settings"] = None
    elif case == "javascript return":
        platform.deep_linking["deep_link_return_url"] = "javascript:alert(document.cookie)"
    elif case == "no resource links":
        platform.deep_linking["accept_types"] = ["link", "file"]
    elif case == "no roles":
        platform.override["https://purl.imsglobal.org/spec/lti/claim/roles"] = [
            "http://purl.imsglobal.org/vocab/lis/v2/institution/person#Instructor"]  # teaches elsewhere, not here
    status, page, buttons = _picker(tool, platform, user)
    assert status in (400, 403), page
    assert buttons == {} and "JWT" not in page and "javascript:" not in page


def test_a_deep_linking_launch_in_the_lms_frame_shows_its_picker(tool: str, platform: Platform) -> None:
    """The "add content" dialog is a frame of the LMS's page: the picker needs no session, so it is not sent to
    a window of its own as a framed assignment launch is."""
    status, page, buttons = _picker(tool, platform, **{"Sec-Fetch-Dest": "iframe"})
    assert status == 200 and "Add hw1" in buttons, page


def test_an_instructor_adds_an_assignment_in_a_browser(tool: str, platform: Platform) -> None:
    """Headless Chromium: the LMS's dialog (lms.test, another site than the tool's) launches the tool, the
    instructor clicks "Add hw1", the response is posted to the LMS, which makes the link; a student's click on it
    opens hw1's page."""
    with browsing("--host-resolver-rules=MAP lms.test 127.0.0.1") as chrome:
        page = person(chrome).new_page()
        page.goto(f"{platform.browser_base}/launch?user=lti-prof&link={DEEP_LINK}")
        page.wait_for_selector("text=Add to Autograd 101")
        page.click("button:text-is('Add hw1')")
        page.wait_for_selector("text=Added to the course")
        link = page.inner_text(".added").split(": ")[-1]
        assert platform.deep_links[-1][0]["custom"] == {"assignment": "hw1"} and link.startswith("dl-")
        student = person(chrome).new_page()
        student.goto(f"{platform.browser_base}/launch?user=lti-s2&link={link}")
        student.wait_for_url(f"{tool}/me/assignments/hw1")
        assert "hw1" in student.inner_text("body")



def test_the_link_brings_its_own_column_and_its_scores_go_there(key_file: Path, tmp_path: Path) -> None:
    """Each link comes with a gradebook column of its own (the content item's lineItem: resourceId the assignment).
    The LMS makes it and names it in the link's launches; publishing sends the assignment's scores there, and asks
    the line items service nothing."""
    lms = Platform(client_id="grader-tool", key_id="tool-key-1", public_key=public_pem(key_file),
                   users={k: dict(v) for k, v in USERS.items()})
    with running(lms) as platform:
        course = lti_course(tmp_path / "course", platform, key_file, deadline=DEADLINE, more=HW2)
        with serving(course, platform) as tool:
            _, _, buttons = _picker(tool, platform)
            assert _post_back(platform, buttons["Add every assignment"])[0] == 200
            items = {i["custom"]["assignment"]: i for i in platform.deep_links[-1]}
            assert items["hw2"]["lineItem"] == {"label": "hw2", "scoreMaximum": 10, "resourceId": "hw2",
                                                "tag": "autograd-grader"}
            assert items["hw1"]["lineItem"]["scoreMaximum"] == 10
            column = {platform.items[n]["resourceLinkId"]: n for n in platform.made}[items["hw2"]["link"]]
            pending = login(tool, platform, "lti-s1", items["hw2"]["link"])  # a student opens hw2 from the LMS
            assert launch(tool, authorize(pending)[1], pending.cookie).status == 200
        asked = len(platform.gets)
        done = grade("gradebook", "hw2", "--course", str(course), "--publish", str(course / "lms.toml"),
                     "--release-hidden")
        assert done.returncode == 0, done.stdout + done.stderr
        assert f"the launch of its LMS link {items['hw2']['link']}" in done.stdout, done.stdout
        assert set(platform.gradebook[column]) == {"lti-s1", "lti-s2"} and len(platform.gradebook) == 1
        assert platform.gets[asked:] == [] and platform.problems == []
