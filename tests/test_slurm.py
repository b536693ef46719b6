"""examples/slurm on a real Slurm: a single-node cluster on this machine (tests/slurm_cluster.py) runs
the example's job array over a class in 4 shards, then its merge; the merged gradebook is the one-machine one."""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from pathlib import Path

import pytest
from slurm_cluster import single_node

from grader.cli import main

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "submissions" / "node-mul"

pytestmark = pytest.mark.slurm


def small_class(folder: Path) -> Path:
    """Nine students, so that the 4 shards are uneven (3, 2, 2, 2): right, wrong, broken, each more than once."""
    folder.mkdir()
    samples = ("correct_lesson_style", "swapped_slopes", "syntax_error", "overwrite", "no_rmul")
    for i in range(9):
        shutil.copy(SAMPLES / f"{samples[i % len(samples)]}.py", folder / f"student{i}.py")
    (folder / "README.txt").write_text("the class of week 3")  # a stray: skipped alike on both sides
    return folder


@pytest.mark.slow
def test_the_slurm_example_in_4_shards_gives_the_one_machine_gradebook(tmp_path: Path) -> None:
    course = tmp_path / "course"
    course.mkdir()
    small_class(course / "submissions")
    assert main(["batch", str(course / "submissions"), "--out", str(tmp_path / "one-machine"), "--exercise",
                 "node-mul", "--seed", "7", "-j", "1"]) == 0
    with single_node(tmp_path / "slurm") as cluster:
        env = {**cluster.env, "SUBMISSIONS": "submissions", "REPORTS": "reports", "CLASS_REPORTS": "class-reports",
               "EXERCISE": "node-mul", "SEED": "7",
               # the tasks find `grade` where the submitting shell does: this interpreter's environment
               "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
        cluster = type(cluster)(cluster.folder, env)
        said = cluster.run("bash", str(ROOT / "examples" / "slurm" / "submit.sh"), "--cpus-per-task=1", "--mem=512M",
                           cwd=course)
        found = re.search(r"job array (\d+); merging: job (\d+)", said)
        assert found is not None, said
        cluster.wait([found[1], found[2]], timeout=600)
    logs = {p.name: p.read_text() for p in course.glob("*.log")}
    merge_log = logs.get(f"grade-class-merge-{found[2]}.log", "")
    assert "merged 9 students from 4 shards into class-reports" in merge_log, logs
    for task in range(4):
        manifest = json.loads((course / "reports" / f"shard-{task}" / "batch.json").read_text())
        assert manifest["shard"] == [task + 1, 4]  # --shard auto read the array task
    assert [len(json.loads((course / "reports" / f"shard-{t}" / "batch.json").read_text())["students"])
            for t in range(4)] == [3, 2, 2, 2]
    merged, alone = course / "class-reports", tmp_path / "one-machine"
    assert (merged / "gradebook.csv").read_bytes() == (alone / "gradebook.csv").read_bytes()
    for done in (alone / "students").glob("*/report.json"):
        theirs = json.loads((merged / "students" / done.parent.name / "report.json").read_text())
        mine = json.loads(done.read_text())
        assert (theirs["score"], theirs["seed"], theirs["submission"]) == (mine["score"], mine["seed"],
                                                                          mine["submission"])
