"""A batch draws each submission's seed from the course secret: a token in each report turns
back into the seed, --resume and shards keep working, and a batch without a secret says what it did."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from grader.cli import main
from grader.core.seeds import seed_from_token, submission_seed
from grader.course.secret import write_new_secret

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "submissions" / "node-mul"
Capture = pytest.CaptureFixture[str]
NAMES = ("correct_lesson_style", "swapped_slopes", "no_rmul", "syntax_error")


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("class") / "submissions"
    folder.mkdir()
    for i, name in enumerate(NAMES):
        shutil.copy(SAMPLES / f"{name}.py", folder / f"s{i}.py")
    return folder


def batch(folder: Path, out: Path, *extra: str) -> int:
    return main(["batch", str(folder), "--out", str(out), "--exercise", "node-mul", "-j", "1", *extra])


def reports(out: Path) -> dict[str, dict[str, object]]:
    return {p.parent.name: json.loads(p.read_text()) for p in (out / "students").glob("*/report.json")}


@pytest.mark.slow
def test_each_submission_gets_its_own_seed_which_its_token_gives_back(folder: Path, tmp_path: Path,
                                                                      capsys: Capture) -> None:
    secret = write_new_secret(tmp_path / "secret")
    out = tmp_path / "out"
    assert batch(folder, out, "--secret-file", str(secret.path)) == 0
    assert f"seeds: one per submission, drawn from the course secret {secret.path}" in capsys.readouterr().out
    found = reports(out)
    seeds = {}
    for student, report in found.items():
        assert report["seed"] is None and str(report["seed_token"]).startswith("s1-")
        seeds[student] = seed_from_token(secret.value, str(report["seed_token"]))
        content = (folder / f"{student}.py").read_bytes()
        assert seeds[student] == submission_seed(secret.value, content).seed
    assert len(set(seeds.values())) == len(NAMES)  # no two submissions share inputs
    assert json.loads((out / "batch.json").read_text())["secret"] == secret.id
    assert secret.value.decode() not in "".join(p.read_text() for p in out.rglob("*") if p.is_file())
    # the instructor reproduces a report from its token: grade seed TOKEN, then grade FILE --seed
    token = str(found["s1"]["seed_token"])
    assert main(["seed", token, "--secret-file", str(secret.path)]) == 0
    assert capsys.readouterr().out.splitlines()[0] == str(seeds["s1"])
    again = tmp_path / "again.json"
    main([str(folder / "s1.py"), "--exercise", "node-mul", "--seed", str(seeds["s1"]), "--format", "json",
          "--output", str(again)])
    assert json.loads(again.read_text())["exercises"] == found["s1"]["exercises"]
    # --resume grades nobody again; another secret is another set-up, so everybody is graded again
    assert batch(folder, out, "--secret-file", str(secret.path), "--resume") == 0
    assert "grading 0 with" in capsys.readouterr().out
    other = write_new_secret(tmp_path / "other")
    assert batch(folder, out, "--secret-file", str(other.path), "--resume") == 0
    assert f"grading {len(NAMES)} with" in capsys.readouterr().out


def test_shards_of_one_secret_merge_and_of_two_are_refused(folder: Path, tmp_path: Path, capsys: Capture) -> None:
    secret, other = write_new_secret(tmp_path / "secret"), write_new_secret(tmp_path / "other")
    first, second, stray = tmp_path / "1", tmp_path / "2", tmp_path / "2b"
    assert batch(folder, first, "--secret-file", str(secret.path), "--shard", "1/2") == 0
    assert batch(folder, second, "--secret-file", str(secret.path), "--shard", "2/2") == 0
    assert batch(folder, stray, "--secret-file", str(other.path), "--shard", "2/2") == 0
    capsys.readouterr()
    assert main(["merge", str(first), str(second), "--out", str(tmp_path / "class")]) == 0
    assert main(["merge", str(first), str(stray), "--out", str(tmp_path / "mixed")]) == 2
    assert "graded with different course secret" in capsys.readouterr().err


def test_a_batch_without_a_secret_says_every_submission_got_one_seed(folder: Path, tmp_path: Path,
                                                                    capsys: Capture) -> None:
    out = tmp_path / "out"
    assert batch(folder, out) == 0
    err = capsys.readouterr().err
    assert "seeds: 0 for every submission, the seed a student's own grade uses by default" in err
    assert "grade seed --new-secret" in err
    for report in reports(out).values():
        assert report["seed"] == 0 and "seed_token" not in report
        assert any("the same for every submission of this batch" in n for n in report["notes"])  # type: ignore[attr-defined]
    assert batch(folder, tmp_path / "fixed", "--seed", "7") == 0
    assert "seeds: 7 for every submission." in capsys.readouterr().err
    assert main(["batch", str(folder), "--out", str(tmp_path / "x"), "--seed", "7", "--secret-file", "s"]) == 2
    assert "choose one" in capsys.readouterr().err


def test_a_secret_is_refused_when_short_and_never_overwritten(tmp_path: Path, capsys: Capture) -> None:
    short = tmp_path / "short"
    short.write_text("abc\n")
    assert main(["seed", "s1-" + "0" * 32, "--secret-file", str(short)]) == 2
    assert "a course secret is one line of 16" in capsys.readouterr().err
    made = write_new_secret(tmp_path / "kept")
    assert oct(made.path.stat().st_mode & 0o777) == "0o600"
    assert main(["seed", "--new-secret", str(made.path)]) == 2
    assert "exists already" in capsys.readouterr().err
