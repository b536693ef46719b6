"""The examples under examples/ run: a Slurm job array and a Kubernetes Indexed Job grade shards that merge."""

from __future__ import annotations

import csv
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from grader.cli import main
from grader.course.export import TORCH_PIN
from grader.course.secret import write_new_secret

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
SAMPLES = ROOT / "submissions"
Capture = pytest.CaptureFixture[str]


def environment(**extra: str) -> dict[str, str]:
    """The grader on PATH (this interpreter's), the course's exercises, and nothing of a scheduler but `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLURM_", "JOB_COMPLETION"))}
    return {**env, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
            "AUTOGRADER_EXERCISES": str(ROOT / "exercises"), **extra}


def node_mul_class(folder: Path) -> Path:
    folder.mkdir(parents=True)
    for name in ("correct_lesson_style", "swapped_slopes", "overwrite", "no_rmul", "syntax_error"):
        shutil.copy(SAMPLES / "node-mul" / f"{name}.py", folder / f"{name}.py")
    return folder


def test_the_slurm_array_grades_its_shards_and_the_merge_joins_them(tmp_path: Path, capsys: Capture) -> None:
    node_mul_class(tmp_path / "submissions")
    array = re.search(r"#SBATCH --array=(\d+)-(\d+)", (EXAMPLES / "slurm" / "grade-class.sbatch").read_text())
    assert array is not None
    first, last = int(array[1]), int(array[2])
    for task in range(first, last + 1):  # as Slurm runs them: same script, its own task id
        env = environment(EXERCISE="node-mul", SLURM_ARRAY_TASK_ID=str(task), SLURM_ARRAY_TASK_MIN=str(first),
                          SLURM_ARRAY_TASK_COUNT=str(last - first + 1), SLURM_CPUS_PER_TASK="1")
        done = subprocess.run(["bash", str(EXAMPLES / "slurm" / "grade-class.sbatch")], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300, check=False)
        assert done.returncode == 0, done.stdout + done.stderr
        assert f"shard {task - first + 1}/{last - first + 1}" in done.stdout
    merged = subprocess.run(["bash", str(EXAMPLES / "slurm" / "merge.sbatch")], cwd=tmp_path, env=environment(),
                            capture_output=True, text=True, timeout=300, check=False)
    assert merged.returncode == 0, merged.stderr
    with (tmp_path / "class-reports" / "gradebook.csv").open(newline="") as handle:
        assert len(list(csv.reader(handle))) == 2 + 5
    shutil.rmtree(tmp_path / "reports" / f"shard-{last}")  # a task that never ran
    refused = subprocess.run(["bash", str(EXAMPLES / "slurm" / "merge.sbatch")], cwd=tmp_path, env=environment(),
                             capture_output=True, text=True, timeout=300, check=False)
    assert refused.returncode == 2 and f"shard {last - first + 1}/{last - first + 1} missing" in refused.stderr


def kubernetes(name: str) -> dict[str, object]:
    manifest: dict[str, object] = yaml.safe_load((EXAMPLES / "kubernetes" / name).read_text())
    return manifest


def container(manifest: dict[str, object]) -> dict[str, object]:
    spec: dict[str, object] = manifest["spec"]  # type: ignore[assignment]
    return spec["template"]["spec"]["containers"][0]  # type: ignore[index,no-any-return]


def test_the_indexed_job_is_one_shard_per_index() -> None:
    job = kubernetes("grade-class-job.yaml")
    spec = job["spec"]
    assert job["kind"] == "Job" and spec["completionMode"] == "Indexed"  # type: ignore[index]
    env = {e["name"]: e["value"] for e in container(job)["env"]}  # type: ignore[attr-defined]
    assert env["JOB_COMPLETIONS"] == str(spec["completions"])  # type: ignore[index]
    assert "--shard auto" in container(job)["args"][0]  # type: ignore[index]
    # as the Indexed Job documentation asks: a pod template that is not restarted in place (a failed index gets a
    # new pod), no more pods at once than indexes; and a local image found without a registry
    assert job["spec"]["template"]["spec"]["restartPolicy"] in ("Never", "OnFailure")  # type: ignore[index]
    assert spec["parallelism"] <= spec["completions"]  # type: ignore[index]
    for manifest in (job, kubernetes("merge-job.yaml")):
        assert container(manifest)["imagePullPolicy"] == "IfNotPresent"


@pytest.mark.slow
def test_the_indexed_job_and_the_merge_job_run(tmp_path: Path) -> None:
    """Each index's command as its pod runs it (JOB_COMPLETION_INDEX set by the Job), then the merge pod's."""
    job, merge = kubernetes("grade-class-job.yaml"), kubernetes("merge-job.yaml")
    grade_env = {e["name"]: e["value"] for e in container(job)["env"]}  # type: ignore[attr-defined]
    (tmp_path / "submissions").mkdir()
    shutil.copy(SAMPLES / "notebooks" / "autograd_lesson.ipynb", tmp_path / "submissions" / "ada.ipynb")
    shutil.copy(SAMPLES / "notebooks" / "not_json.ipynb", tmp_path / "submissions" / "bob.ipynb")
    secret = write_new_secret(tmp_path / "course-secret")  # the Secret the Job mounts, shared by every index
    for index in range(int(grade_env["JOB_COMPLETIONS"])):
        env = environment(**{**grade_env, "DATA": str(tmp_path), "JOB_COMPLETION_INDEX": str(index),
                             "SECRET_FILE": str(secret.path)})
        done = subprocess.run([*container(job)["command"], *container(job)["args"]],  # type: ignore[misc]
                              env=env, capture_output=True, text=True, timeout=300, check=False)
        assert done.returncode == 0, done.stdout + done.stderr
    merge_env = {e["name"]: e["value"] for e in container(merge)["env"]}  # type: ignore[attr-defined]
    done = subprocess.run([*container(merge)["command"], *container(merge)["args"]],  # type: ignore[misc]
                          env=environment(**{**merge_env, "DATA": str(tmp_path)}), capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    with (tmp_path / "class-reports" / "gradebook.csv").open(newline="") as handle:
        header, _, ada, bob = list(csv.reader(handle))
    assert header[5:] == ["autograd"] and float(ada[5]) > 0 and bob[5] == "0"


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def commands(path: Path) -> str:
    """An example's text with each command on one line: YAML's strings, scripts' continued lines joined."""
    text = path.read_text()
    if path.suffix in (".yml", ".yaml"):
        return "\n".join(" ".join(s.split()) for s in _strings(yaml.safe_load(text)))
    return text.replace("\\\n", " ")


def test_every_example_pins_the_readme_torch_and_uses_options_the_cli_has(capsys: Capture) -> None:
    texts = {path: commands(path) for path in EXAMPLES.rglob("*") if path.is_file()}
    for path, text in texts.items():
        assert set(re.findall(r"torch==([\d.]+)", text)) <= {TORCH_PIN}, path
        assert not re.search(r"pip install (-\S+ )*torch(?!==)", text), f"{path}: an unpinned torch"
    used = {(m[1], option) for text in texts.values() for m in re.finditer(r"grade (batch|merge)\b([^\n]*)", text)
            for option in re.findall(r"(?<![\w-])--[a-z][a-z-]+", m[2])}
    assert {("batch", "--shard"), ("batch", "--resume"), ("merge", "--out")} <= used
    for command, option in used:
        with pytest.raises(SystemExit):
            main([command, "--help"])
        assert option in capsys.readouterr().out, f"grade {command} has no {option}"
