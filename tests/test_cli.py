"""The `grade` command as a user runs it: exit codes, formats, errors in one line, `list`, `validate`."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from grader import cli
from grader.cli import main
from grader.outputs.render_json import report_schema

ROOT = Path(__file__).resolve().parent.parent
SOLUTION = ROOT / "exercises" / "node-mul" / "solution.py"
MUTANT = ROOT / "exercises" / "node-mul" / "mutants" / "swapped_locals.py"
Capture = pytest.CaptureFixture[str]


def json_report(capsys: Capture, *args: str) -> tuple[int, dict[str, object]]:
    capsys.readouterr()
    code = main([*args, "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


def without_timings(report: object) -> object:
    if isinstance(report, dict):
        return {k: without_timings(v) for k, v in report.items() if k != "seconds"}
    if isinstance(report, list):
        return [without_timings(v) for v in report]
    return report


def test_full_marks_exit_zero_and_the_exercise_comes_from_the_file(capsys: Capture) -> None:
    code = main([str(SOLUTION), "--color", "never"])  # the '# exercise: node-mul' line picks it
    out = capsys.readouterr().out
    assert code == 0
    assert "Exercise node-mul" in out and "Score: 10/10 (6 of 6 checks passed)" in out
    assert "\x1b[" not in out  # no colour codes in a log


def test_points_lost_exit_one_with_expected_and_got(capsys: Capture) -> None:
    code = main([str(MUTANT), "--color", "never"])
    out = capsys.readouterr().out
    assert code == 1
    assert re.search(r"FAIL +gradients under a factor +0/2", out)
    assert re.search(r"x\.grad +expected -?[\d.]+, got -?[\d.]+", out)
    assert "inputs   a = " in out and "ran      x, y = Node(a), Node(b)" in out


def test_colour_when_asked(capsys: Capture) -> None:
    main([str(MUTANT), "--color", "always"])
    assert "\x1b[" in capsys.readouterr().out


def test_json_report_validates_and_is_identical_for_the_same_seed(capsys: Capture) -> None:
    code, first = json_report(capsys, str(MUTANT))
    jsonschema.validate(first, report_schema())
    assert code == 1 and first["version"] == "1.9" and first["score"] == 1 and first["max_score"] == 10
    assert (first["public_score"], first["hidden_points"]) == (1, 0)
    _, again = json_report(capsys, str(MUTANT))
    assert without_timings(again) == without_timings(first)
    _, other_seed = json_report(capsys, str(MUTANT), "--seed", "1")
    assert without_timings(other_seed) != without_timings(first)


def test_json_numbers_are_numbers_at_full_precision(capsys: Capture) -> None:
    _, report = json_report(capsys, str(MUTANT))
    observations = [o for e in report["exercises"] for c in e["checks"] for o in c["observations"]]  # type: ignore[index,union-attr]
    wrong = [o for o in observations if not o["ok"]]
    assert wrong and all(isinstance(o["expected_value"], float) and isinstance(o["got_value"], float) for o in wrong)
    for o in observations:  # the text is the number rounded for people; the number is not rounded
        assert float(o["expected"]) == pytest.approx(o["expected_value"], rel=1e-5)
    assert any(len(repr(o["expected_value"])) > len(o["expected"]) for o in observations)
    public = [c for e in report["exercises"] for c in e["checks"] if c["visibility"] == "public"]  # type: ignore[index,union-attr]
    for check in public:  # the inputs too, rounded in `inputs` only
        assert check["input_values"].keys() == check["inputs"].keys() != set()
        assert all(float(check["inputs"][k]) == pytest.approx(v, rel=1e-3) for k, v in check["input_values"].items())


def test_hidden_checks_keep_their_details_to_themselves(capsys: Capture) -> None:
    _, report = json_report(capsys, str(MUTANT))
    hidden = [c for e in report["exercises"] for c in e["checks"] if c["visibility"] == "hidden"]  # type: ignore[index,union-attr]
    assert hidden and all(c["inputs"] == {} and c["code"] == "" and c["observations"] == [] for c in hidden)
    assert all("withheld" in c["message"] for c in hidden if c["status"] == "failed")


def test_output_file(tmp_path: Path, capsys: Capture) -> None:
    target = tmp_path / "report.json"
    assert main([str(SOLUTION), "--format", "json", "--output", str(target)]) == 0
    assert capsys.readouterr().out == ""
    jsonschema.validate(json.loads(target.read_text()), report_schema())


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.py", "-e", "node-mul"], "missing.py: no such file"),
        ([str(SOLUTION), "-e", "node-mull"], "unknown exercise 'node-mull': the exercises folder "),
        ([str(ROOT / "reference" / "scalar.py")], "which exercise is this? Pass --exercise ID"),
        # a folder is one student's files: this one holds far too many to be an answer
        ([str(ROOT / "exercises")], "the grader looks at most at 50"),
        ([str(ROOT / "examples" / "kubernetes")], "No .py file or notebook was handed in"),
        ([str(SOLUTION), "--seed", "x"], "argument --seed: invalid int value: 'x'"),
        ([str(SOLUTION), "--time-limit", "0"], "--time-limit must be a positive number"),
        ([], "the following arguments are required: submission"),
        ([str(SOLUTION), "--exercises", "/nonexistent"], "no exercises folder found"),
        (["validate", "nope"], "unknown exercise 'nope'"),
    ],
)
def test_user_errors_are_one_line_and_exit_two(args: list[str], message: str, capsys: Capture) -> None:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and "Traceback" not in err
    assert err.count("\n") == 1


def test_unreadable_submissions_exit_two(tmp_path: Path, capsys: Capture) -> None:
    binary = tmp_path / "binary.py"
    binary.write_bytes(b"\x00\x01\x02")
    latin = tmp_path / "latin.py"
    latin.write_bytes(b"x = 1\n# caf\xe9\n")
    assert main([str(binary), "-e", "node-mul"]) == 2
    assert main([str(latin), "-e", "node-mul"]) == 2
    err = capsys.readouterr().err
    assert "is a binary file" in err and "latin.py, line 2: not UTF-8 text" in err


def test_a_broken_spec_exits_two_naming_file_and_line(tmp_path: Path, capsys: Capture) -> None:
    broken = tmp_path / "node-mul"
    shutil.copytree(ROOT / "exercises" / "node-mul", broken)
    spec = broken / "exercise.yaml"
    spec.write_text(spec.read_text().replace("points: 10", "points: ten"))
    assert main([str(SOLUTION), "--exercises", str(tmp_path)]) == 2
    assert re.search(r"exercise\.yaml, line \d+: points: must be a number, got 'ten'", capsys.readouterr().err)


def test_internal_errors_exit_three_with_a_traceback(monkeypatch: pytest.MonkeyPatch, capsys: Capture) -> None:
    def explode(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr("grader.judge.session.grade", explode)
    assert main([str(SOLUTION)]) == 3
    err = capsys.readouterr().err
    assert "Traceback" in err and "RuntimeError: boom" in err and "internal error in autograd-grader" in err


def test_list(capsys: Capture) -> None:
    assert main(["list"]) == 0
    assert re.search(r"^node-mul +10 pts +Multiplication and its gradient$", capsys.readouterr().out, re.M)


def test_validate_passes_a_sound_exercise(capsys: Capture) -> None:
    assert main(["validate", "node-mul", "--seeds", "2"]) == 0
    out = capsys.readouterr().out
    assert "ok   node-mul" in out and "1 of 1 exercises sound" in out
    assert "mutant swapped-locals loses points at every seed" in out


def test_validate_fails_an_exercise_whose_probes_miss_a_mutant(tmp_path: Path, capsys: Capture) -> None:
    weak = tmp_path / "node-mul"
    shutil.copytree(ROOT / "exercises" / "node-mul", weak)
    shutil.copy(weak / "solution.py", weak / "mutants" / "not_a_mistake.py")
    source = (weak / "mutants" / "not_a_mistake.py").read_text()
    (weak / "mutants" / "not_a_mistake.py").write_text(
        source.replace('"""Exercise node-mul', '"""mistake: none\nhint: none\n\nExercise node-mul', 1))
    assert main(["validate", "--exercises", str(tmp_path), "--seeds", "1"]) == 1
    out = capsys.readouterr().out
    assert "FAIL node-mul" in out and "mutant none (not_a_mistake.py) keeps full marks" in out


def test_validate_fails_when_the_oracles_disagree(tmp_path: Path, capsys: Capture) -> None:
    bad = tmp_path / "node-mul"
    shutil.copytree(ROOT / "exercises" / "node-mul", bad)
    spec = bad / "exercise.yaml"
    spec.write_text(spec.read_text().replace("gradients: {x.grad: a, y.grad: b}", "gradients: {x.grad: b, y.grad: a}"))
    assert main(["validate", "--exercises", str(tmp_path), "--seeds", "1"]) == 1
    out = capsys.readouterr().out
    assert "oracles disagree: seed 0, probe 'gradients under a factor': x.grad: central differences give" in out


def test_validate_fails_a_probe_that_calls_what_the_exercise_does_not_teach(tmp_path: Path, capsys: Capture) -> None:
    # a correct engine without tanh (micrograd's Value has none) would lose a check of * that needs it
    strict = tmp_path / "node-mul"
    shutil.copytree(ROOT / "exercises" / "node-mul", strict)
    spec = strict / "exercise.yaml"
    spec.write_text(spec.read_text().replace("out = (x * y) * c", "out = (x * y).tanh() * c", 1))
    assert main(["validate", "--exercises", str(tmp_path), "--seeds", "1"]) == 1
    out = capsys.readouterr().out
    assert "probe 'gradients under a factor' calls tanh, which exercise node-mul does not teach" in out


@pytest.mark.slow
def test_python_dash_m_and_the_console_script(tmp_path: Path) -> None:
    env = {**os.environ, "NO_COLOR": "1"}
    ran = subprocess.run([sys.executable, "-m", "grader", str(MUTANT)], capture_output=True, text=True, env=env,
                         cwd=tmp_path, check=False)
    assert ran.returncode == 1 and "Score: 1/10" in ran.stdout
    script = shutil.which("grade")
    if script is None:
        pytest.skip("the package is not installed, so there is no `grade` script")
    ran = subprocess.run([script, "--version"], capture_output=True, text=True, check=False)
    assert ran.returncode == 0 and ran.stdout.startswith("autograd-grader ")


@pytest.mark.slow
@pytest.mark.parametrize(("sample", "code", "score"), [("correct_float32.py", 0, "10/10"), ("by_hand.py", 1, None)])
def test_a_grade_that_imported_torch_still_writes_all_of_its_report(sample: str, code: int, score: str | None,
                                                                     tmp_path: Path) -> None:
    """From the course, with no values kept, the solution runs here and imports torch; `grade` then leaves
    without the interpreter's teardown (grader.__main__): what it wrote to a pipe and to a file is whole."""
    env = {**os.environ, "NO_COLOR": "1", "AUTOGRADER_CACHE": "off"}
    path = ROOT / "submissions" / "first-gradient" / sample
    ran = subprocess.run([sys.executable, "-m", "grader", str(path)], capture_output=True, text=True, env=env,
                         cwd=tmp_path, check=False)
    assert ran.returncode == code, ran.stderr
    last = ran.stdout.rstrip("\n").splitlines()[-1]
    assert ran.stdout.endswith("\n") and last.startswith("Score: ") and (score is None or score in last), ran.stdout
    report = tmp_path / "report.json"
    ran = subprocess.run([sys.executable, "-m", "grader", str(path), "--format", "json", "--output", str(report)],
                         capture_output=True, text=True, env=env, cwd=tmp_path, check=False)
    assert ran.returncode == code, ran.stderr
    jsonschema.validate(json.loads(report.read_text(encoding="utf-8")), report_schema())


@pytest.mark.slow
def test_a_command_that_imported_torch_still_prints_all_it_printed(tmp_path: Path) -> None:
    """validate prints line by line (buffered, in a pipe) and imports torch: nothing is lost on the way out."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"}
    ran = subprocess.run([sys.executable, "-m", "grader", "validate", "first-gradient", "--seeds", "1"],
                         capture_output=True, text=True, env=env, cwd=tmp_path, check=False)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith("ok   first-gradient\n") and ran.stdout.endswith("1 of 1 exercises sound\n")


@pytest.mark.parametrize("command", cli.COMMANDS)
def test_every_command_explains_itself(command: str, capsys: Capture) -> None:
    with pytest.raises(SystemExit) as exit_:
        main([command, "--help"])
    assert exit_.value.code == 0 and f"usage: grade {command}" in capsys.readouterr().out


FIRST_GRADIENT = ROOT / "exercises" / "first-gradient" / "solution.py"


@pytest.mark.slow
def test_device_choice(capsys: Capture) -> None:
    assert main([str(FIRST_GRADIENT), "--device", "cpu", "--color", "never"]) == 0
    assert "Score: 10/10" in capsys.readouterr().out
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    assert main([str(FIRST_GRADIENT), "--device", "cuda"]) == 2
    assert "--device cuda: CUDA is not available on this machine" in capsys.readouterr().err


def test_a_json_report_reads_back_into_the_same_report(capsys: Capture) -> None:
    from grader.outputs.render_json import report_from_dict, report_to_dict

    _, data = json_report(capsys, str(MUTANT))
    assert report_to_dict(report_from_dict(data)) == data  # type: ignore[arg-type]


def test_grading_an_engine_exercise_never_imports_torch() -> None:
    # Neither its child nor the grading process needs torch: the reference engine and central
    # differences give and confirm the expected values (the torch engine joins in grade validate).
    script = ("import sys; from grader.cli import main; code = main([sys.argv[1], '--color', 'never']); "
              "print('torch loaded' if 'torch' in sys.modules else 'no torch'); sys.exit(code)")
    sample = Path(__file__).resolve().parent.parent / "submissions" / "node-mul" / "swapped_slopes.py"
    done = subprocess.run([sys.executable, "-c", script, str(sample)], capture_output=True, text=True, check=False,
                          cwd=Path(__file__).resolve().parent.parent)
    assert done.returncode == 1, done.stderr
    assert done.stdout.rstrip().endswith("no torch")
    assert "Score: 1/10" in done.stdout and "swapped-locals" in done.stdout


def test_help_lists_every_command_with_one_line(capsys: Capture) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    out = capsys.readouterr().out
    assert exit_.value.code == 0
    listed = dict(line.split(None, 1) for line in out.split("commands:\n", 1)[1].strip().splitlines())
    assert sorted(listed) == sorted(cli.COMMANDS) and all(about.strip() for about in listed.values())


def test_a_mistyped_command_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Capture) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["lst"]) == 2
    assert "lst: no such command or file. Did you mean 'grade list'?" in capsys.readouterr().err
    assert main(["relase", "--out", "x"]) == 2
    assert "Did you mean 'grade release'?" in capsys.readouterr().err
    (tmp_path / "lst").write_text("# exercise: node-mul\n")  # a file by that name is graded, not corrected
    main(["lst", "--color", "never"])
    assert "Did you mean" not in capsys.readouterr().err


def test_a_mistyped_file_name_is_named(tmp_path: Path, capsys: Capture) -> None:
    (tmp_path / "node-mul.py").write_text("# exercise: node-mul\n")
    assert main([str(tmp_path / "node_mul.py")]) == 2
    assert "node_mul.py: no such file. Did you mean node-mul.py?" in capsys.readouterr().err


@pytest.mark.parametrize(("line", "expected"), [
    ("grade ba", {"batch"}),
    ("grade batch --ou", {"--out"}),
    ("grade validate node-m", {"node-mul"}),
    ("grade -e node-a", {"node-add"}),
    ("grade --assignment auto", {"autograd"}),
    ("grade submissions/node-mul/correct_l", {"submissions/node-mul/correct_lesson_style.py",
                                             "submissions/node-mul/correct_lesson_style.expect.yaml"}),
])
def test_the_shell_completes_commands_options_ids_and_files(line: str, expected: set[str], tmp_path: Path) -> None:
    """What bash gets from `grade` under argcomplete (eval "$(register-python-argcomplete grade)")."""
    out = tmp_path / "completions"
    env = {**os.environ, "_ARGCOMPLETE": "1", "COMP_LINE": line, "COMP_POINT": str(len(line)),
           "_ARGCOMPLETE_IFS": "\n", "_ARGCOMPLETE_STDOUT_FILENAME": str(out)}
    done = subprocess.run([sys.executable, "-m", "grader"], env=env, cwd=ROOT, capture_output=True, text=True,
                          check=False, timeout=60)
    assert done.returncode == 0, done.stderr
    assert {c.strip() for c in out.read_text().split("\n") if c.strip()} == expected


def test_a_reader_that_stops_early_is_not_an_error() -> None:
    """`grade list | head -3`: the pipe closes under us; no traceback, no "internal error", the SIGPIPE code."""
    done = subprocess.run(f"{sys.executable} -m grader list | head -3", shell=True, capture_output=True, text=True,
                          check=False, executable="/bin/bash")
    assert len(done.stdout.splitlines()) == 3 and done.stderr == ""
    # a reader gone before the first line is written: every write meets a closed pipe
    process = subprocess.Popen([sys.executable, "-m", "grader", "list"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()
    with process.stderr:
        err = process.stderr.read()
    assert process.wait(timeout=60) == 141  # 128 + SIGPIPE, as a command the signal stopped reports
    assert err == b""
