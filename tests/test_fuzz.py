"""Malformed input from instructors and students: a clear one-line error and exit code 2, never a traceback."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.cli import main
from grader.core.errors import GraderError
from grader.judge.spec import load_exercise
from grader.run.read.load import load_submission

ROOT = Path(__file__).resolve().parent.parent
SPEC = yaml.safe_load((ROOT / "exercises" / "node-mul" / "exercise.yaml").read_text())
NOTEBOOK = json.loads((ROOT / "submissions" / "notebooks" / "first_gradient_v44.ipynb").read_text())
FUZZ = settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                         HealthCheck.too_slow])

scalars = st.none() | st.booleans() | st.integers(-5, 5) | st.floats(allow_nan=True) | st.text(max_size=8) | \
    st.sampled_from(["scalar", "exponent", "public", "hidden", "x.grad", "out.value", "1e-6", "class", "torch"])
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3) |
                      st.dictionaries(st.text(max_size=6) | st.sampled_from(list(SPEC)), inner, max_size=3),
                      max_leaves=8)


def paths_of(data: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [at]
    if isinstance(data, dict):
        for key, value in data.items():
            found += paths_of(value, (*at, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            found += paths_of(value, (*at, index))
    return found


@st.composite
def mutated_specs(draw: st.DrawFn) -> str:
    """The node-mul spec with a few of its fields replaced, removed or joined by unknown ones."""
    spec = copy.deepcopy(SPEC)
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.sampled_from(paths_of(spec)[1:]))
        parent: Any = spec
        for step in at[:-1]:
            parent = parent[step]
        action = draw(st.sampled_from(["replace", "delete", "add"]))
        if action == "delete":
            del parent[at[-1]]
        elif action == "replace":
            parent[at[-1]] = draw(values)
        elif isinstance(parent, dict):
            parent[draw(st.text(min_size=1, max_size=6))] = draw(values)
        if not spec:
            break
    return yaml.safe_dump(spec, sort_keys=False)


raw_yaml = st.text(alphabet=st.sampled_from(list("ab:-[]{}#'\"|>&*!%@ \t\n0123456789.eE")), max_size=120)


@pytest.fixture
def course(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "exercises" / "node-mul", tmp_path / "node-mul")
    return tmp_path / "node-mul" / "exercise.yaml"


@pytest.mark.slow
@FUZZ
@given(text=mutated_specs() | raw_yaml)
def test_any_spec_loads_or_says_what_is_wrong_in_one_line(course: Path, text: str) -> None:
    course.write_text(text)
    try:
        load_exercise(course)
    except GraderError as exc:
        assert str(exc).startswith(str(course)) and "\n" not in str(exc), str(exc)


notebook_keys = st.sampled_from(["cells", "metadata", "nbformat", "nbformat_minor", "cell_type", "source", "outputs",
                                 "execution_count", "id", "tags", "autograd_grader"])


@st.composite
def mutated_notebooks(draw: st.DrawFn) -> bytes:
    notebook = copy.deepcopy(NOTEBOOK)
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.sampled_from(paths_of(notebook)[1:]))
        parent: Any = notebook
        for step in at[:-1]:
            parent = parent[step]
        choice = draw(st.sampled_from(["replace", "delete", "add"]))
        if choice == "delete":
            del parent[at[-1]]
        elif choice == "replace":
            parent[at[-1]] = draw(values)
        elif isinstance(parent, dict):
            parent[draw(notebook_keys)] = draw(values)
    return json.dumps(notebook).encode()


@pytest.mark.slow
@FUZZ
@given(data=mutated_notebooks() | st.binary(max_size=200) | st.text(max_size=200).map(str.encode))
def test_any_notebook_loads_or_says_what_is_wrong_in_one_line(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "fuzz.ipynb"
    path.write_bytes(data)
    try:
        submission = load_submission(path)
    except GraderError as exc:
        assert str(exc).startswith(str(path)) and "\n" not in str(exc), str(exc)
    else:
        assert all(isinstance(cell.source, str) for cell in submission.cells)


words = st.sampled_from(["list", "validate", "release", "batch", "merge", "export", "gradescope", "--exercise",
                         "-e", "--assignment", "--seed", "--format", "--output", "--time-limit", "--device",
                         "--exercises", "--seeds", "--out", "-j", "--shard", "--roster", "--resume", "json", "text",
                         "junit", "cpu", "cuda", "all", "node-mul", "nope", "1", "-3", "0", "2/4", "5/2", "x",
                         "--help-me", "missing.py", "missing.ipynb", "MISSING_DIR"])


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(argv=st.lists(words, max_size=6))
def test_any_command_line_is_an_answer_or_one_line_of_error(argv: list[str], tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    argv = [str(tmp_path / a) if a.startswith(("missing", "MISSING")) else a for a in argv]
    if "validate" in argv:  # an answer, not the command's 40 seeds of every exercise's variants each time
        argv += ["--seeds", "1", "--variant-seeds", "1"]
    try:
        code = main(argv)
    except SystemExit as exit_:  # --help and friends
        code = int(exit_.code or 0)
    err = capsys.readouterr().err
    assert code in (0, 1, 2), (argv, code, err)
    assert "Traceback" not in err, (argv, err)
    if code == 2 and err:
        assert err.startswith(("error: ", "usage: ")), err


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("binary.py", b"\x7fELF\x00\x00\x01", "is a binary file, not Python source"),
        ("latin1.py", "caf\xe9 = 1\n".encode("latin-1"), "not UTF-8 text"),
        ("huge.py", b"x = 1\n" * 600_000, "a submission may be at most"),
        ("binary.ipynb", b"\x00\x01\x02", "not a notebook"),
        ("empty.ipynb", b"", "not a notebook: not valid JSON"),
        ("latin1.ipynb", '{"a": "caf\xe9"}'.encode("latin-1"), "not a notebook: not UTF-8 text"),
    ],
)
def test_bad_submission_files_are_one_line_and_exit_two(tmp_path: Path, name: str, content: bytes, message: str,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    assert main([str(path), "--exercise", "node-mul"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and err.count("\n") == 1, err


@pytest.mark.slow
@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "the file is empty"),
        (b"\xff\xfe binary \x00", "not UTF-8 text"),
        (b"id: node-mul\n" + b"title: x\n" * 200_000, "title appears twice"),
        (b"- a list\n- not a spec\n", "must be a mapping"),
        (b"id: [unclosed\n", "not valid YAML"),
    ],
)
def test_bad_spec_files_are_one_line_and_exit_two(course: Path, content: bytes, message: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    course.write_bytes(content)
    solution = ROOT / "exercises" / "node-mul" / "solution.py"
    assert main([str(solution), "--exercises", str(course.parent.parent)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and err.count("\n") == 1, err


def test_an_empty_python_file_is_graded_as_defining_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty.py"
    empty.write_text("")
    assert main([str(empty), "--exercise", "node-mul", "--color", "never"]) == 1
    assert "does not define `Node` (a class)" in capsys.readouterr().out
