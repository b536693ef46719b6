"""The examples under examples/ run: a Slurm job array and a Kubernetes Indexed Job grade shards that merge."""

from __future__ import annotations

import csv
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from grader import cli_commands
from grader.cli import main
from grader.cli_commands import COMMANDS
from grader.course.pack.export import TORCH_PIN
from grader.course.roster import read_roster
from grader.course.secret import write_new_secret
from grader.service.config import load_course

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


@pytest.mark.slow
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
    """An example's text with each command on one line: YAML's strings (a command's list joined), scripts'
    continued lines joined."""
    text = path.read_text()
    if path.suffix in (".yml", ".yaml"):
        return "\n".join(" ".join(s.split()) for s in _strings(list(yaml.safe_load_all(text))) + [
            " ".join(c["command"]) for c in _containers(path) if isinstance(c.get("command"), list)])
    return text.replace("\\\n", " ")


def test_every_example_pins_the_readme_torch_and_uses_options_the_cli_has(capsys: Capture) -> None:
    texts = {path: commands(path) for path in EXAMPLES.rglob("*") if path.is_file()}
    for path, text in texts.items():
        assert set(re.findall(r"torch==([\d.]+)", text)) <= {TORCH_PIN}, path
        assert not re.search(r"pip install (-\S+ )*torch(?!==)", text), f"{path}: an unpinned torch"
    named = "|".join(sorted(c for c in COMMANDS if c != "store"))
    used = {(m[1], option) for text in texts.values() for m in re.finditer(rf"grade ({named})\b([^\n]*)", text)
            for option in re.findall(r"(?<![\w-])--[a-z][a-z-]+", m[2].split(" grade ")[0])}
    assert {("batch", "--shard"), ("batch", "--resume"), ("merge", "--out"), ("serve", "--forwarded-allow-ips"),
            ("worker", "--course")} <= used
    for command, option in used:
        with pytest.raises(SystemExit):
            main([command, "--help"])
        assert option in capsys.readouterr().out, f"grade {command} has no {option}"


def _containers(path: Path) -> list[dict[str, Any]]:
    """Every container of every workload in a manifest file."""
    found = []
    for manifest in yaml.safe_load_all(path.read_text()):
        spec = (manifest or {}).get("spec", {})
        found += spec.get("template", {}).get("spec", {}).get("containers", [])
    return found


def _parsed(argv: list[str]) -> None:
    """`grade ...` parsed by grade's own parser for that command: an option it lacks, or a bad value, fails."""
    assert argv[0] == "grade" and argv[1] in COMMANDS, argv
    cli_commands.command(argv[1]).parser().parse_args(argv[2:])


def test_every_manifest_is_valid_against_the_kubernetes_api_and_runs_commands_grade_has(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import kubernetes_validate

    manifests = sorted((EXAMPLES / "kubernetes").glob("*.yaml"))
    assert {"course-server.yaml", "store-secret.yaml"} <= {m.name for m in manifests}
    kinds = []
    for path in manifests:
        for manifest in yaml.safe_load_all(path.read_text()):
            kubernetes_validate.validate(manifest, "1.30.0", strict=True)  # raises, naming the field, if invalid
            kinds.append((manifest["kind"], manifest["metadata"]["name"]))
            if manifest["kind"] == "Secret":  # a placeholder's shape, never a value that would work
                assert all("REPLACE" in v or "@" in v for v in manifest["stringData"].values()), path
    assert {("Deployment", "grade-serve"), ("Deployment", "grade-worker"), ("Service", "grade-serve"),
            ("ConfigMap", "course"), ("Secret", "grade-store")} <= set(kinds)
    serving = [c for c in _containers(EXAMPLES / "kubernetes" / "course-server.yaml")]
    for container in serving:
        _parsed(container["command"])
        assert "--host" not in container["command"] or "--forwarded-allow-ips" in container["command"]
    (config,) = [m for m in yaml.safe_load_all((EXAMPLES / "kubernetes" / "course-server.yaml").read_text())
                 if m["kind"] == "ConfigMap"]
    folder = tmp_path / "course"  # the ConfigMap as the pods mount it, read by this grader with the image's catalog
    folder.mkdir()
    for name, text in config["data"].items():
        (folder / name).write_text(text)
    monkeypatch.setenv("AUTOGRADER_EXERCISES", str(ROOT / "exercises"))
    course = load_course(folder)
    assert course.exercises == ROOT / "exercises" and course.secret_file == Path("/secret/course-secret")
    assert read_roster(course.roster).students if course.roster else False
    mounts = {c["name"]: {m["mountPath"] for m in c["volumeMounts"]} for c in serving}
    assert "/secret" in mounts["serve"] and "/secret" not in mounts["worker"]  # only the server draws seeds


def _unit(path: Path, folder: Path) -> Path:
    """The unit with grade at this interpreter's, as an installed grader would be (systemd checks the command)."""
    copy = folder / path.name.replace("@.", "@1.")
    copy.write_text(path.read_text().replace("/opt/autograd-grader/bin/grade", str(Path(sys.executable).parent
                                                                                   / "grade")))
    return copy


def test_the_systemd_units_verify_and_start_commands_grade_has(tmp_path: Path) -> None:
    units = sorted((EXAMPLES / "systemd").glob("*.*"))
    assert [u.name for u in units] == ["grade-backup.service", "grade-backup.timer", "grade-serve.service",
                                       "grade-worker@.service"]
    for unit in units:
        text = unit.read_text()
        for start in re.findall(r"^ExecStart=(.*)$", text, re.MULTILINE):
            argv = shlex.split(start)
            if argv[:2] == ["/bin/sh", "-c"]:  # a shell for the date in the backup's name: its command's words
                argv = shlex.split(re.sub(r"\$\([^)]*\)", "DATE", argv[2]).removeprefix("exec "))
            assert argv[0] == "/opt/autograd-grader/bin/grade"
            _parsed(["grade", *argv[1:]])
        if unit.name in ("grade-serve.service", "grade-worker@.service"):  # started again whenever they stop
            assert re.search(r"^Restart=always$", text, re.MULTILINE)
            assert re.search(r"^KillMode=mixed$", text, re.MULTILINE)  # SIGTERM to grade alone: jobs finish
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed: the units were parsed, not verified")
    copies = [_unit(unit, tmp_path) for unit in units]
    done = subprocess.run([analyze, "verify", *map(str, copies)], capture_output=True, text=True, timeout=120,
                          check=False)
    # systemd-analyze exits 0 on an unknown key or a bad value, and says so: nothing may be said
    assert done.returncode == 0 and not done.stderr.strip(), done.stderr
    broken = tmp_path / "broken.service"
    broken.write_text(copies[2].read_text().replace("Restart=always", "Restart=alwayz"))
    said = subprocess.run([analyze, "verify", str(broken)], capture_output=True, text=True, timeout=120, check=False)
    assert "alwayz" in said.stderr  # the check above can fail


def test_the_dockerfile_installs_what_exists_and_serves() -> None:
    text = (EXAMPLES / "kubernetes" / "Dockerfile").read_text().replace("\\\n", " ")
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]
    (base,) = [line.split()[1] for line in lines if line.startswith("FROM ")]
    python = re.fullmatch(r"python:(\d+)\.(\d+)-slim", base)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    floor = re.fullmatch(r">=(\d+)\.(\d+)", project["requires-python"])
    assert python is not None and floor is not None and (int(python[1]), int(python[2])) >= (int(floor[1]),
                                                                                          int(floor[2]))
    assert "COPY . /opt/autograd-grader" in lines
    installed = [m[1] for m in re.finditer(r'pip install [^\n]*"/opt/autograd-grader\[([\w,]+)\]"', text)]
    assert installed == ["server"] and set(installed[0].split(",")) <= set(project["optional-dependencies"])
    env = dict(re.findall(r"(\w+)=(\S+)", next(line for line in lines if line.startswith("ENV "))))
    assert Path(env["AUTOGRADER_EXERCISES"].replace("/opt/autograd-grader", str(ROOT))).is_dir()
    packages = [p for m in re.finditer(r"apt-get install ([^&]*)", text) for p in m[1].split() if not p.startswith("-")]
    assert packages == ["postgresql-client"]  # grade store backup runs pg_dump
    if shutil.which("apt-cache") is not None:  # this machine is Debian 12, as python:3.11-slim is
        for package in packages:
            assert subprocess.run(["apt-cache", "show", package], capture_output=True, check=False).returncode == 0
    assert "EXPOSE 8000" in lines and all("--port 8000" in " ".join(c["command"])
                                          for c in _containers(EXAMPLES / "kubernetes" / "course-server.yaml")
                                          if c["command"][1] == "serve")
