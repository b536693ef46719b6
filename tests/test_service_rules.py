"""The course server's rules, called directly: what an upload must be, course.toml's checks, which submission counts
under each late policy (late days spent across assignments in deadline order), and what a student may see."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from grader.core.errors import GraderError
from grader.service.config import DAY, Rules, days_late, load_course
from grader.service.standing import Row, count, factor_of
from grader.service.uploads import Refused, file_name, vet

ROOT = Path(__file__).resolve().parent.parent


def check_upload(content: bytes, name: str, cap: int) -> Refused | str:
    """grader.service.uploads.vet, with its refusal returned rather than raised."""
    try:
        return vet(content, name, cap)
    except Refused as refused:
        return refused


@pytest.mark.parametrize(("content", "name", "status", "said"), [
    (b"x" * 2000, "a.py", 413, "KiB"),
    (b"  \n", "a.py", 422, "empty"),
    (b"PK\x03\x04rest", "hw.py", 415, "zip archive"),
    (b"print(1)\x00", "a.py", 415, "binary"),
    ("s = 'é'\n".encode("latin-1"), "a.py", 415, "line 1"),
    (json.dumps({"cells": []}).encode(), "a.py", 422, "under a name ending in .ipynb"),
    (b"print('not json')\n", "a.ipynb", 422, "not one"),
])
def test_an_upload_that_is_not_code_is_refused_with_what_it_is(content: bytes, name: str, status: int,
                                                               said: str) -> None:
    refused = check_upload(content, name, cap=1024)
    assert isinstance(refused, Refused) and refused.status == status and said in refused.message


def test_code_and_notebooks_are_taken_and_names_never_carry_a_path() -> None:
    assert check_upload(b"\xef\xbb\xbfx = 1\n", "mine.py", 1024) == ".py"
    assert check_upload(json.dumps({"cells": [], "nbformat": 4}).encode(), "Lab.IPYNB", 1024) == ".ipynb"
    assert check_upload(b"x = 1\n", "notes.txt", 1024) == ".py"
    assert file_name("../../etc/passwd") == "passwd" and file_name("a\\b\x1b[31m.py") == "b__31m.py"
    deep = b"[" * 5000 + b"]" * 5000  # nested past json's recursion limit: still a plain answer
    refused = check_upload(deep, "a.ipynb", 20000)
    assert isinstance(refused, Refused) and refused.status == 422


def _rules(name: str, deadline: float, late: str = "penalty", **more: object) -> Rules:
    return Rules(id=name, exercise_ids=("node-mul",), catalog_assignment=None, opens=None, deadline=deadline,
                 late=late, **more)  # type: ignore[arg-type]


#: _course's deadlines
DEADLINES = {"hw1": 1767225600.0, "hw2": 1769904000.0}


def _row(ident: int, assignment: str, score: float, days: float, at: float) -> Row:
    """A graded submission `days` late (received `at` seconds into its day late: how late it is comes from its
    receipt, and from the deadline in force now where that is later)."""
    received = DEADLINES[assignment] + (days - 1) * DAY + at if days else DEADLINES[assignment] - 1000 + at
    return Row(id=ident, assignment=assignment, filename="f.py", sha256="", received_at=received, days_late=days,
               seed_token="", outcome="graded", score=score, max_score=10.0, public_score=score, state="done")


def test_days_late_round_up_and_the_penalty_stops_at_its_limit() -> None:
    assert days_late(100.0, 100.0) == 0 and days_late(101.0, 100.0) == 1 and days_late(100 + DAY + 1, 100.0) == 2
    rules = _rules("a", 0.0, penalty_per_day=0.25, max_late_days=3)
    assert factor_of(rules, 0, 0) == (1.0, 0, "on time")
    assert factor_of(rules, 2, 0)[0] == 0.5 and factor_of(rules, 4, 0)[0] == 0.0
    assert factor_of(_rules("a", 0.0, late="none"), 1, 5)[0] == 0.0


def test_late_days_go_where_they_count_most_and_best_or_last_counts(tmp_path: Path) -> None:
    course = _course(tmp_path)
    rows = [_row(3, "hw2", 10.0, 2, 30.0), _row(2, "hw1", 9.0, 1, 20.0), _row(1, "hw1", 6.0, 0, 10.0)]
    counted = count(course, "s1", rows)
    # both late days on hw2's 10 (two days late) and hw1's 6 on time: 16, where hw1's late 9 first would make 9
    assert counted["hw1"].score == 6.0 and counted["hw1"].late_days_used == 0
    assert counted["hw2"].score == 10.0 and counted["hw2"].late_days_used == 2
    fewer = [_row(3, "hw2", 10.0, 3, 30.0), *rows[1:]]  # hw2 three days late: more than the budget
    counted = count(course, "s1", fewer)
    assert counted["hw1"].score == 9.0 and counted["hw2"].score == 0.0 and "with 1 late day left" in counted["hw2"].why
    last = count(_course(tmp_path / "last", counts="last"), "s1", rows)
    assert last["hw1"].row is not None and last["hw1"].row.id == 2  # the newest, whatever it scored


def test_a_grader_error_is_never_what_counts(tmp_path: Path) -> None:
    course = _course(tmp_path, counts="last")
    broken = Row(id=9, assignment="hw1", filename="f.py", sha256="", received_at=99.0, days_late=0,
                 seed_token="", outcome="grader-error", score=0.0, max_score=0.0, public_score=0.0, state="done")
    counted = count(course, "s1", [broken, _row(1, "hw1", 7.0, 0, 10.0)])
    assert counted["hw1"].score == 7.0


def _course(folder: Path, counts: str = "best") -> object:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "course.toml").write_text(f'''exercises = "{ROOT / 'exercises'}"
late_days = 2
[assignments.hw1]
exercises = ["node-mul"]
deadline = 2026-01-01T00:00:00Z
late = "late-days"
counts = "{counts}"
[assignments.hw2]
exercises = ["node-add"]
deadline = 2026-02-01T00:00:00Z
late = "late-days"
counts = "{counts}"
[extensions.hw1]
s2 = 3
''')
    return load_course(folder)


def test_course_toml_mistakes_name_the_file_and_the_field(tmp_path: Path) -> None:
    course = _course(tmp_path)
    assert course.assignments["hw1"].deadline_for("s2") == course.assignments["hw1"].deadline + 3 * DAY  # type: ignore[attr-defined,operator]
    text = (tmp_path / "course.toml").read_text()
    (tmp_path / "bad").mkdir()
    for good, bad, said in (('late = "late-days"', 'late = "sometimes"', "late must be"),
                            ('counts = "best"', 'counts = "first"', "counts must be"),
                            ('exercises = ["node-mul"]', 'exercises = ["no-such"]', "unknown exercise"),
                            ("deadline = 2026-01-01T00:00:00Z", "deadline = 5", "date and time")):
        (tmp_path / "bad" / "course.toml").write_text(text.replace(good, bad, 1))
        with pytest.raises(GraderError, match=said) as raised:
            load_course(tmp_path / "bad")
        assert "course.toml" in str(raised.value)


def test_what_the_code_printed_is_withheld_from_a_student_whenever_hidden_checks_ran() -> None:
    """A submission that prints its inputs would otherwise show the hidden checks' inputs once they are taken out."""
    from grader.judge.audience import Audience, redact
    from grader.judge.report import CheckResult, ExerciseResult, Report
    from grader.service.reports import as_graded

    checks = tuple(CheckResult(name=n, about="", status="passed", score=1.0, max_score=1.0, problem="",
                               visibility=v) for n, v in (("shown", "public"), ("secret", "hidden")))
    report = Report(submission="a.py", sha256="", seed=123456, grader_version="x", output="a = 0.7311\n",
                    exercises=(ExerciseResult(id="node-mul", title="", checks=checks),))
    token = "s1-" + "0" * 32
    for released in (False, True):
        view = redact(as_graded(report, token), Audience.student(released))
        assert view.output == "" and any("withheld" in n for n in view.notes)
        # the seed drawn from the secret never shows (the hidden inputs follow from it): its token does
        assert view.seed is None and view.seed_token == token and view.seed_shown == f"seed token {token}"
    fixed = as_graded(report, "seed-4217")  # a course's one fixed seed is shown, as a batch's --seed
    assert fixed.seed == 4217 and fixed.seed_token is None
    before = redact(report, Audience.student(False))
    assert [c.name for c in before.exercises[0].checks] == ["shown"] and before.hidden_points == 1.0


def test_each_migration_file_is_named_after_its_revision_in_one_chain() -> None:
    """A reader finds a revision by its id: the file is named after it (the ids themselves are
    the ones stores in the field hold, and never change), and the revisions form one chain."""
    folder = ROOT / "grader" / "service" / "db" / "migrations" / "versions"
    down: dict[str, str | None] = {}
    for path in sorted(folder.glob("*.py")):
        if path.name == "__init__.py":
            continue
        values = {}
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
                values[node.targets[0].id] = node.value.value  # type: ignore[attr-defined]
        assert values["revision"] == path.stem, f"{path.name} holds revision {values['revision']!r}"
        down[values["revision"]] = values["down_revision"]
    heads = set(down) - set(down.values())
    assert len(heads) == 1 and list(down.values()).count(None) == 1, down
    assert sorted(down.values(), key=str) == sorted({*down.values()}, key=str)  # no branch


def test_a_store_of_an_older_schema_is_migrated_with_its_data(tmp_path: Path) -> None:
    """A course that upgrades the grader keeps every student and submission (Alembic, revision by revision)."""
    from sqlalchemy import text

    from grader.service.db.store import migrate, open_store, reading, writing

    engine = open_store(f"sqlite:///{tmp_path / 'old.db'}", migrate_now=False)
    migrate(engine, "0001")
    with writing(engine) as db:
        db.execute(text("INSERT INTO students (id, name, email, sis_user_id, sis_login_id, section, role) "
                        "VALUES ('s1', 'Ann', '', '', '', '', 'student')"))
    migrate(engine)
    with reading(engine) as db:
        assert db.execute(text("SELECT id, name, lti_user_id FROM students")).all() == [("s1", "Ann", "")]
        assert db.execute(text("SELECT version_num FROM alembic_version")).scalar_one() == _head()


def _head() -> str:
    """The newest migration's revision, whatever it is named."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", str(Path(__file__).parent.parent / "grader/service/db/migrations"))
    head = ScriptDirectory.from_config(config).get_current_head()
    assert head is not None
    return head


def test_grade_submit_finds_the_server_in_the_pack_and_the_token_beside_it(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    from grader.cli import main
    from grader.service.client import settings

    pack = tmp_path / "pack"
    assert main(["release", "node-mul", "--out", str(pack), "--server", "https://grader.example.edu/"]) == 0
    monkeypatch.delenv("AUTOGRADER_SERVER", raising=False)
    monkeypatch.delenv("AUTOGRADER_TOKEN", raising=False)
    (pack / "work").mkdir()
    with pytest.raises(GraderError, match="no token"):
        settings(pack / "work")
    with (pack / "grade-course.toml").open("a") as toml:
        toml.write('token = "agt_0123456789abcdef_x"\n')
    assert settings(pack / "work").server == "https://grader.example.edu"
    monkeypatch.setenv("AUTOGRADER_TOKEN", "agt_from_the_environment")
    assert settings(pack / "work").token == "agt_from_the_environment"
