"""grader.course.pack.release on its own: what a pack holds, what it leaves behind, and that releasing twice changes
nothing.

tests/test_notebooks.py grades released packs end to end through the CLI; this file calls `release`
directly on a small course (node-mul, an engine exercise with a hidden check; first-gradient, a torch
exercise whose oracle is its solution; an assignment of both) and reads the files it wrote.
"""

from __future__ import annotations

import json
import shutil
import tomllib
from pathlib import Path
from typing import Any

import nbformat as nbformat_module
import pytest
from hypothesis import given
from hypothesis import strategies as st

from grader import __version__
from grader.core.errors import GraderError
from grader.core.text import clean, toml_string
from grader.course.pack.release import release, with_advice
from grader.judge.catalog import Catalog
from grader.judge.oracle import expected_values
from grader.judge.spec import load_exercise
from grader.run.inputs import draw_inputs
from grader.run.read.notebook import METADATA_KEY
from grader.service.client import settings

ROOT = Path(__file__).resolve().parent.parent
nbformat: Any = nbformat_module  # untyped library
EXERCISES = ("node-mul", "first-gradient")


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("course")
    for exercise_id in EXERCISES:
        shutil.copytree(ROOT / "exercises" / exercise_id, root / exercise_id)
    (root / "assignments").mkdir()
    (root / "assignments" / "pair.yaml").write_text(
        "id: pair\ntitle: A pair\nsummary: Two exercises in one notebook.\nexercises: [first-gradient, node-mul]\n",
        encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def pack(course: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path]]:
    out = tmp_path_factory.mktemp("pack")
    return out, release(Catalog(course), out, ["node-mul"], ["pair"])


def test_the_pack_lists_exactly_the_files_it_wrote(pack: tuple[Path, list[Path]]) -> None:
    out, written = pack
    on_disk = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert sorted(p.relative_to(out).as_posix() for p in written) == on_disk
    assert on_disk == ["README.md", "exercises/assignments/pair.yaml",
                       "exercises/first-gradient/exercise.yaml", "exercises/first-gradient/expected.json",
                       "exercises/first-gradient/mistakes.json", "exercises/first-gradient/starter.py",
                       "exercises/node-mul/exercise.yaml", "exercises/node-mul/mistakes.json",
                       "exercises/node-mul/starter.py", "exercises/pack.json",
                       "first-gradient.ipynb", "first-gradient.py", "node-mul.ipynb", "node-mul.py", "pair.ipynb",
                       f"wheels/autograd_grader-{__version__}-py3-none-any.whl"]


@pytest.mark.parametrize("exercise_id", EXERCISES)
def test_a_packed_exercise_has_the_public_checks_only_and_says_what_it_left_out(
        course: Path, pack: tuple[Path, list[Path]], exercise_id: str) -> None:
    original = load_exercise(course / exercise_id / "exercise.yaml")
    packed = load_exercise(pack[0] / "exercises" / exercise_id / "exercise.yaml")
    public = [p for p in original.probes if p.visibility == "public"]
    hidden = sum(p.points for p in original.probes if p.visibility == "hidden")
    assert hidden > 0  # both exercises have a hidden check: the test means something
    assert [p.name for p in packed.probes] == [p.name for p in public]
    assert [(p.code, p.observe, p.points) for p in packed.probes] == [(p.code, p.observe, p.points) for p in public]
    assert (packed.points, packed.hidden_points) == (sum(p.points for p in public), hidden)
    assert packed.solution is None and packed.mutants == ()
    assert packed.starter.read_text(encoding="utf-8") == original.starter.read_text(encoding="utf-8")
    spec = (pack[0] / "exercises" / exercise_id / "exercise.yaml").read_text(encoding="utf-8")
    assert spec.startswith(f"# Released by `grade release` from {exercise_id}: public checks only.\n")
    assert "solution" not in spec and "mutants" not in spec and "visibility: hidden" not in spec


def test_a_torch_exercise_carries_its_solutions_answers_for_the_public_checks_at_the_packs_seed(
        course: Path, pack: tuple[Path, list[Path]]) -> None:
    original = load_exercise(course / "first-gradient" / "exercise.yaml")
    packed = load_exercise(pack[0] / "exercises" / "first-gradient" / "exercise.yaml")
    stored = json.loads((pack[0] / "exercises" / "first-gradient" / "expected.json").read_text(encoding="utf-8"))
    assert stored["seed"] == 0
    assert sorted(stored["probes"]) == sorted(p.name for p in packed.probes)
    # what a student's grade reads from the pack is what the solution gives
    from_pack = expected_values(packed, draw_inputs(packed, 0), seed=0)
    from_solution = {p.name: e for p, e in zip(original.probes, expected_values(original, draw_inputs(original, 0),
                                                                                  seed=0), strict=True)}
    for probe, value in zip(packed.probes, from_pack, strict=True):
        assert value.observations == from_solution[probe.name].observations, probe.name
        # and the slack float32 gets at each check (grader.judge.precision): a pack's float32 answer is right too
        assert (value.float32, value.accepts_float32) == (from_solution[probe.name].float32,
                                                          from_solution[probe.name].accepts_float32), probe.name
    assert any(value.accepts_float32 and value.float32 for value in from_pack)


def test_an_engine_exercise_carries_no_answers_and_its_mistakes_no_code(course: Path,
                                                                       pack: tuple[Path, list[Path]]) -> None:
    # its oracle is the reference engine, which every pack has; its known mistakes travel as names, hints and the
    # values they give on the public checks, never as the mutants' code nor the lines it raised on
    folder = pack[0] / "exercises" / "node-mul"
    assert sorted(p.name for p in folder.iterdir()) == ["exercise.yaml", "mistakes.json", "starter.py"]
    stored = json.loads((folder / "mistakes.json").read_text(encoding="utf-8"))
    mutants = load_exercise(course / "node-mul" / "exercise.yaml").mutants
    assert stored["seed"] == 0
    assert sorted(m["mistake"] for m in stored["mistakes"]) == sorted(m.mistake for m in mutants)
    text = (folder / "mistakes.json").read_text(encoding="utf-8")
    for mutant in mutants:
        body = [line.strip() for line in mutant.path.read_text(encoding="utf-8").splitlines()
                if "grad +=" in line or "grad =" in line]  # its backward's lines
        assert body and not any(line in text for line in body), mutant.path.name
    assert '"where":null' in text or '"where"' not in text


def test_a_pack_released_again_keeps_the_hidden_points_it_left_out(course: Path, pack: tuple[Path, list[Path]],
                                                                   tmp_path: Path) -> None:
    again = tmp_path / "again"
    release(Catalog(pack[0] / "exercises"), again, list(EXERCISES), [])
    for exercise_id in EXERCISES:
        first = load_exercise(pack[0] / "exercises" / exercise_id / "exercise.yaml")
        second = load_exercise(again / "exercises" / exercise_id / "exercise.yaml")
        assert (second.points, second.hidden_points) == (first.points, first.hidden_points)
        assert first.hidden_points > 0


def test_releasing_twice_writes_the_same_bytes(course: Path, pack: tuple[Path, list[Path]], tmp_path: Path) -> None:
    out, written = pack
    again = tmp_path / "again"
    rewritten = release(Catalog(course), again, ["node-mul"], ["pair"])
    assert [p.relative_to(again) for p in rewritten] == [p.relative_to(out) for p in written]
    for path in written:
        assert (again / path.relative_to(out)).read_bytes() == path.read_bytes(), path.name


def test_an_exercises_notebook_holds_its_task_and_its_starter_and_names_itself(course: Path,
                                                                                pack: tuple[Path, list[Path]]) -> None:
    notebook = nbformat.read(pack[0] / "node-mul.ipynb", as_version=4)
    nbformat.validate(notebook)
    assert notebook.metadata[METADATA_KEY] == {"exercise": "node-mul"}
    task, code = notebook.cells
    assert (task.cell_type, code.cell_type) == ("markdown", "code")
    assert task.source.startswith("# Multiplication and its gradient\n\nImplement `Node.__mul__`")
    assert task.source.endswith('`grade node-mul.ipynb`, or in a cell of this notebook with `from grader import '
                                'check` and then `check("node-mul")`.')
    starter = (course / "node-mul" / "starter.py").read_text(encoding="utf-8")
    assert starter.startswith("# exercise: node-mul\n")
    assert code.source == starter.removeprefix("# exercise: node-mul\n").strip()  # the metadata says it instead
    assert [cell.id for cell in notebook.cells] == ["node-mul-1", "node-mul-2"]


def test_an_assignments_notebook_has_a_section_per_exercise_in_its_order(pack: tuple[Path, list[Path]]) -> None:
    notebook = nbformat.read(pack[0] / "pair.ipynb", as_version=4)
    assert notebook.metadata[METADATA_KEY] == {"assignment": "pair"}
    kinds = [cell.cell_type for cell in notebook.cells]
    assert kinds == ["markdown", "markdown", "code", "markdown", "code"]
    intro, first, _, second, _ = notebook.cells
    assert intro.source.startswith("# A pair\n\nTwo exercises in one notebook.\n\nCheck your work at any time with "
                                   "`grade pair.ipynb`")
    assert first.source.startswith("## ") and second.source.startswith("## Multiplication and its gradient")
    assert "check(\"" not in first.source  # an assignment's check() takes no id: the notebook names it


def test_released_starters_tell_how_to_check_them_by_their_released_name(pack: tuple[Path, list[Path]]) -> None:
    py = (pack[0] / "node-mul.py").read_text(encoding="utf-8")
    assert py.count("grade node-mul.py") == 1
    compile(py, "node-mul.py", "exec")


def test_advice_under_a_one_line_docstring_or_a_file_that_does_not_parse_is_a_comment() -> None:
    assert with_advice('# exercise: x\n"""Do it."""\nx = 1\n', "x.py") == \
        '# exercise: x\n# Check your work with:\n#\n#     grade x.py\n"""Do it."""\nx = 1\n'
    assert with_advice("def f(:\n", "x.py") == "# Check your work with:\n#\n#     grade x.py\ndef f(:\n"
    assert with_advice("", "x.py") == "# Check your work with:\n#\n#     grade x.py\n"


def test_the_packs_readme_says_how_to_install_check_and_what_hidden_checks_and_time_limits_mean(
        course: Path, pack: tuple[Path, list[Path]], tmp_path: Path) -> None:
    from grader.course.pack.export import TORCH_PIN

    text = (pack[0] / "README.md").read_text(encoding="utf-8")
    # the grader from the pack itself (no index has it), only its dependencies from the student's index
    wheel = f"wheels/autograd_grader-{__version__}-py3-none-any.whl"
    assert f"pip install ./{wheel}   # the grader, from this folder" in text and (pack[0] / wheel).is_file()
    assert "autograd-grader==" not in text
    assert f"pip install torch=={TORCH_PIN} --index-url https://download.pytorch.org/whl/cpu" in text
    assert "torch is needed by first-gradient only" in text  # node-mul never imports it
    assert "grade node-mul.py" in text and "grade pair.ipynb" in text
    # a row per exercise, with the points the pack can check, the hidden points and the time limit
    for exercise_id in EXERCISES:
        original = load_exercise(course / exercise_id / "exercise.yaml")
        public = sum(p.points for p in original.probes if p.visibility == "public")
        hidden = sum(p.points for p in original.probes if p.visibility == "hidden")
        assert f"| {exercise_id}: {original.title} | `{exercise_id}.py`, `{exercise_id}.ipynb` | {public:g} | " \
               f"{hidden:g} | {original.time_limit:g} s |" in text
    assert "## Hidden checks" in text and "graded after you submit" in text
    assert "## Time limits" in text and "Your code did not finish within" in text
    # an engine exercise alone runs no torch, but the grader installs with it: the CPU build, said so
    alone = release(Catalog(course), tmp_path, ["node-mul"], [])
    text = (tmp_path / "README.md").read_text(encoding="utf-8")
    assert f"pip install torch=={TORCH_PIN} --index-url" in text and "no exercise of this folder runs it" in text
    assert tmp_path / "README.md" in alone


def test_markdown_in_released_notebooks_shows_dunder_names_as_code(course: Path, pack: tuple[Path, list[Path]]) -> None:
    """Markdown (CommonMark, as Jupyter renders it) reads Node.__mul__ as Node.<strong>mul</strong>."""
    from markdown_it import MarkdownIt

    from grader.course.pack.markdown import code_dunders

    released = nbformat.read(pack[0] / "node-mul.ipynb", as_version=4)
    rendered = MarkdownIt("commonmark").render(released.cells[0].source)
    assert "<code>Node.__mul__</code>" in rendered and "<code>Node.__rmul__</code>" in rendered
    assert "<strong>" not in rendered and "<em>" not in rendered
    assert "<strong>mul</strong>" in MarkdownIt("commonmark").render("Implement Node.__mul__ now")  # the bug it fixes
    assert code_dunders("keep `x.__add__` and zero_grad(), a__b__c") == "keep `x.__add__` and zero_grad(), a__b__c"
    assert code_dunders("its _backward and self._prev") == "its `_backward` and `self._prev`"


@pytest.mark.slow
def test_a_release_runs_the_mistakes_public_checks_only_and_writes_the_same_pack(
        course: Path, pack: tuple[Path, list[Path]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The pack keeps what each known mistake gave on the public checks: `grade release` runs those alone (one child a
    mistake), and the pack is byte for byte the one whose mistakes ran their hidden checks too (where the runs are
    shared with grading, which needs them: one child too where the hidden checks come last)."""
    from grader.judge.mistake_runs import MutantCache
    from grader.run.sandbox import Sandbox

    launched: list[str | None] = []
    original = Sandbox.launch

    def counting(self: Sandbox, submission: Any, groups: Any, **options: Any) -> Any:
        launched.append(submission.name)
        return original(self, submission, groups, **options)

    monkeypatch.setattr(Sandbox, "launch", counting)
    alone = release(Catalog(course), tmp_path / "alone", ["node-mul"], ["pair"])
    mutants = len(load_exercise(course / "node-mul" / "exercise.yaml").mutants) + \
        len(load_exercise(course / "first-gradient" / "exercise.yaml").mutants)
    assert len(launched) == mutants
    shared: MutantCache = {}
    launched.clear()
    full = release(Catalog(course), tmp_path / "full", ["node-mul"], ["pair"], mutant_cache=shared)
    # both exercises' hidden checks come last: a mistake's public and hidden checks in one child (grading's)
    assert len(launched) == mutants and shared
    for path in pack[1]:
        relative = path.relative_to(pack[0])
        assert (tmp_path / "alone" / relative).read_bytes() == (tmp_path / "full" / relative).read_bytes() == \
            path.read_bytes(), relative
    assert sorted(p.relative_to(tmp_path / "alone") for p in alone) == \
        sorted(p.relative_to(tmp_path / "full") for p in full)


@given(st.text())
def test_toml_string_is_read_back_by_tomllib_as_the_same_text(text: str) -> None:
    assert tomllib.loads(f"key = {toml_string(text)}\n")["key"] == clean(text)


def test_the_packs_course_file_names_a_server_that_grade_submit_reads_back_whatever_it_spells(
        course: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # json.dumps once wrote the emoji as two surrogate escapes, which no TOML reader takes: every student's
    # grade submit then failed on the pack's own file
    server = 'https://bücher.example/kurs-😀/a"b\\c\x7fd'
    out = tmp_path / "pack"
    release(Catalog(course), out, ["node-mul"], [], server=server)
    monkeypatch.delenv("AUTOGRADER_SERVER", raising=False)
    monkeypatch.setenv("AUTOGRADER_TOKEN", "t0ken")
    assert settings(start=out).server == server


@pytest.mark.parametrize("server", ["grader.example.edu", "ftp://grader.example.edu", "javascript:alert(1)"])
def test_a_server_that_is_not_an_http_address_is_refused_before_anything_is_written(
        course: Path, tmp_path: Path, server: str) -> None:
    with pytest.raises(GraderError, match="not an http"):
        release(Catalog(course), tmp_path / "pack", ["node-mul"], [], server=server)
    assert not (tmp_path / "pack").exists()
