"""grade merge proves its inputs: the shards of one batch, all of them, once each; and then gives the same gradebook."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from grader.cli import main
from grader.core.errors import GraderError
from grader.course.classlist import shard_spec

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "submissions" / "node-mul"
Capture = pytest.CaptureFixture[str]


@pytest.fixture(scope="module")
def klass(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Seven students on a roster: right, wrong, broken and one who handed in nothing; and a stranger."""
    root = tmp_path_factory.mktemp("class")
    folder = root / "submissions"
    folder.mkdir()
    for i, name in enumerate(("correct_lesson_style", "swapped_slopes", "overwrite", "no_rmul", "syntax_error",
                              "correct_lesson_style")):
        shutil.copy(SAMPLES / f"{name}.py", folder / f"s{i}.py")
    shutil.copy(SAMPLES / "overwrite.py", folder / "stranger.py")
    roster = root / "roster.csv"
    roster.write_text("submission,id,name\n" + "".join(f"s{i}.py,u{i},Student {i}\n" for i in range(6))
                      + ",u6,Student Absent\n")
    return folder, roster


def batch(klass: tuple[Path, Path], out: Path, *extra: str) -> Path:
    folder, roster = klass
    assert main(["batch", str(folder), "--out", str(out), "--exercise", "node-mul", "--roster", str(roster),
                 "-j", "1", *extra]) == 0
    return out


@pytest.fixture(scope="module")
def shards(klass: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    root = tmp_path_factory.mktemp("shards")
    return [batch(klass, root / f"reports-{k}", "--shard", f"{k}/3") for k in (1, 2, 3)]


def refusal(capsys: Capture, folders: list[Path], out: Path) -> str:
    capsys.readouterr()
    assert main(["merge", *map(str, folders), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1, err  # one line
    return err


def test_the_full_set_gives_the_gradebook_of_one_unsharded_run(klass: tuple[Path, Path], shards: list[Path],
                                                               tmp_path: Path, capsys: Capture) -> None:
    whole = batch(klass, tmp_path / "whole")
    merged = tmp_path / "merged"
    assert main(["merge", *map(str, shards), "--out", str(merged)]) == 0
    assert "merged 7 students from 3 shards" in capsys.readouterr().out
    assert (merged / "gradebook.csv").read_bytes() == (whole / "gradebook.csv").read_bytes()
    gradebook = (whole / "gradebook.csv").read_text()
    assert "Student Absent,u6," in gradebook and "stranger" not in gradebook  # the roster, whatever shard ran
    # the summary too, timings aside
    def timeless(folder: Path) -> dict[str, object]:
        data = json.loads((folder / "summary.json").read_text())
        for row in data["scores"]["students"]:
            row["seconds"] = 0
        return {k: v for k, v in data.items() if k != "slowest"}
    assert timeless(merged) == timeless(whole)
    manifest = json.loads((merged / "batch.json").read_text())
    assert manifest["shard"] is None and manifest["students"] == [f"u{i}" for i in range(7)]


def test_a_missing_shard_is_refused(shards: list[Path], tmp_path: Path, capsys: Capture) -> None:
    err = refusal(capsys, shards[:2], tmp_path / "out")
    assert "shard 3/3 missing" in err and str(shards[0]) in err and str(shards[1]) in err
    assert not (tmp_path / "out" / "gradebook.csv").exists()


def test_a_shard_given_twice_is_refused(shards: list[Path], tmp_path: Path, capsys: Capture) -> None:
    assert "is given twice" in refusal(capsys, [shards[0], shards[0], shards[1], shards[2]], tmp_path / "out")
    copy = tmp_path / "copy-of-1"
    shutil.copytree(shards[0], copy)
    err = refusal(capsys, [shards[0], copy, shards[1], shards[2]], tmp_path / "out")
    assert f"{shards[0]} and {copy} are both shard 1/3" in err


def test_a_student_in_two_shards_is_refused(shards: list[Path], tmp_path: Path, capsys: Capture) -> None:
    forged = tmp_path / "forged-2"
    shutil.copytree(shards[1], forged)
    first = json.loads((shards[0] / "batch.json").read_text())
    manifest = json.loads((forged / "batch.json").read_text())
    manifest["students"].append(first["students"][0])
    manifest["folders"].append(first["folders"][0])
    (forged / "batch.json").write_text(json.dumps(manifest))
    err = refusal(capsys, [shards[0], forged, shards[2]], tmp_path / "out")
    assert f"student {first['students'][0]} is in {shards[0]} and in {forged}" in err


@pytest.mark.parametrize(("option", "words"), [(["--seed", "7"], "different seed (0 and 7)"),
                                                (["--time-limit", "3"], "different time limit")])
def test_a_shard_graded_with_another_set_up_is_refused(klass: tuple[Path, Path], shards: list[Path], tmp_path: Path,
                                                       capsys: Capture, option: list[str], words: str) -> None:
    other = batch(klass, tmp_path / "other-3", "--shard", "3/3", *option)
    err = refusal(capsys, [shards[0], shards[1], other], tmp_path / "out")
    assert f"{shards[0]} and {other} were graded with {words}" in err


def test_a_shard_of_another_exercise_is_refused(klass: tuple[Path, Path], shards: list[Path], tmp_path: Path,
                                                capsys: Capture) -> None:
    folder, roster = klass
    other = tmp_path / "other-3"
    main(["batch", str(folder), "--out", str(other), "--exercise", "node-add", "--roster", str(roster), "-j", "1",
          "--shard", "3/3"])
    assert "were graded with different exercises (node-mul and node-add)" in \
        refusal(capsys, [shards[0], shards[1], other], tmp_path / "out")


def test_an_unfinished_or_mixed_shard_is_refused(shards: list[Path], tmp_path: Path, capsys: Capture) -> None:
    cut = tmp_path / "cut-2"
    shutil.copytree(shards[1], cut)
    next((cut / "students").glob("*/done.json")).unlink()  # a CI job killed before this student finished
    err = refusal(capsys, [shards[0], cut, shards[2]], tmp_path / "out")
    assert f"{cut} (shard 2/3): 1 of its 2 students have no finished report" in err and "--resume" in err
    mixed = tmp_path / "mixed-3"
    shutil.copytree(shards[2], mixed)
    shutil.copytree(next((shards[0] / "students").iterdir()), mixed / "students" / "from-elsewhere")
    assert "holds reports its run did not make (from-elsewhere)" in \
        refusal(capsys, [shards[0], shards[1], mixed], tmp_path / "out")


def test_a_folder_that_no_batch_wrote_is_refused(shards: list[Path], tmp_path: Path, capsys: Capture) -> None:
    (tmp_path / "empty").mkdir()
    assert "no batch.json: not the --out of a grade batch" in refusal(capsys, [tmp_path / "empty"], tmp_path / "out")


@pytest.mark.parametrize(("environ", "shard"), [
    ({"SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "0"}, (1, 4)),
    ({"SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "1"}, (4, 4)),
    ({"SLURM_ARRAY_TASK_ID": "8", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "0",
      "SLURM_ARRAY_TASK_STEP": "4"}, (3, 4)),
    ({"JOB_COMPLETION_INDEX": "2", "JOB_COMPLETIONS": "3"}, (3, 3)),
])
def test_shard_auto_reads_the_scheduler(environ: dict[str, str], shard: tuple[int, int]) -> None:
    assert shard_spec("auto", environ) == shard


@pytest.mark.parametrize(("environ", "words"), [
    ({}, "none of SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX is set"),
    ({"JOB_COMPLETION_INDEX": "2"}, "not JOB_COMPLETIONS"),
    ({"JOB_COMPLETION_INDEX": "3", "JOB_COMPLETIONS": "3"}, "is not one of the 3 tasks"),
    ({"SLURM_ARRAY_TASK_ID": "x", "SLURM_ARRAY_TASK_COUNT": "2"}, "must be whole numbers"),
])
def test_shard_auto_outside_a_scheduler_says_what_is_missing(environ: dict[str, str], words: str) -> None:
    with pytest.raises(GraderError, match=words):
        shard_spec("auto", environ)
