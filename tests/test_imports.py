"""Fair imports: the standard library for engines, numpy where the course allows it, and C extensions as
an allowlist per import policy."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

from grader.judge.catalog import Catalog
from grader.judge.session import grade
from grader.run.policy import INTO_MEMORY, REACHES_OUT, engine_policy, torch_policy
from grader.run.read.load import load_submission
from grader.run.sandbox import Sandbox, policy_of

ROOT = Path(__file__).resolve().parent.parent
COURSE = Catalog(ROOT / "examples" / "courses" / "micrograd")


def test_an_engine_may_import_the_standard_library_but_what_reaches_out() -> None:
    policy = engine_policy()
    for module in ("json", "os", "os.path", "importlib.util", "marshal", "dataclasses", "http", "urllib.parse",
                   "concurrent.futures", "_json", "select"):
        assert policy.permits(module), module
    for module in ("socket", "subprocess", "ctypes", "mmap", "_xxsubinterpreters", "http.client", "urllib.request",
                   "multiprocessing.pool", "numpy", "torch", "grader.run.child.child", "sqlite3"):
        assert not policy.permits(module), module
    assert policy.permits_extension("_json") and not policy.permits_extension("_socket")
    assert policy.key == "lean:"  # no package: the lean zygote, without numpy
    with_numpy = engine_policy(["numpy"])
    assert with_numpy.permits("numpy.linalg") and with_numpy.permits_extension("numpy.core._multiarray_umath")
    assert with_numpy.key == "lean:numpy"


def test_no_policy_loads_what_reaches_into_memory_or_another_interpreter() -> None:
    anything = torch_policy()
    assert anything.permits("socket") and anything.permits("ctypes")  # torch brings ctypes; the guard refuses its calls
    for module in ("_xxsubinterpreters", "_testcapi", "_ctypes", "mmap", "_testinternalcapi"):
        assert module in INTO_MEMORY and not anything.permits_extension(module), module
    assert not REACHES_OUT & engine_policy().allowed  # type: ignore[operator]


def test_the_micrograd_course_lets_every_engine_exercise_import_numpy() -> None:
    for exercise in COURSE.load_all():
        assert "numpy" in exercise.source.allow_imports and policy_of(exercise).permits("numpy")
    assert not policy_of(Catalog(ROOT / "exercises").load("node-mul")).permits("numpy")


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    with Sandbox(lean=True, hide=[COURSE.root]) as fresh:
        yield fresh


def _engine(tmp_path: Path, slope: str) -> Path:
    """The course's value-abs solution in numpy's float64, with `slope` as the local slope of abs."""
    source = (COURSE.root / "value-abs" / "solution.py").read_text(encoding="utf-8")
    source = "import numpy as np\n" + source.replace(
        'out = Value(abs(self.data), (self,), "abs")', 'out = Value(np.abs(np.float64(self.data)), (self,), "abs")')
    source = source.replace("self.grad += (1.0 if self.data > 0 else -1.0) * out.grad", f"self.grad += {slope}")
    path = tmp_path / "abs.py"
    path.write_text(source, encoding="utf-8")
    return path


def test_an_engine_in_numpy_scores_what_its_work_earns(sandbox: Sandbox, tmp_path: Path) -> None:
    exercise = COURSE.load("value-abs")
    right = grade(load_submission(_engine(tmp_path, "np.sign(np.float64(self.data)) * out.grad")), [exercise],
                  seed=1, sandbox=sandbox)
    assert right.score == right.max_score == 6 and not right.notes
    wrong = grade(load_submission(_engine(tmp_path, "np.float64(1.0) * out.grad")), [exercise], seed=1,
                  sandbox=sandbox)  # the slope left of zero is +1: the checks right of zero still pass
    assert 0 < wrong.score < wrong.max_score
    refused = dataclasses.replace(exercise, source=dataclasses.replace(exercise.source, allow_imports=()))
    without = grade(load_submission(_engine(tmp_path, "np.sign(np.float64(self.data)) * out.grad")), [refused],
                    seed=1, sandbox=sandbox)  # where the course does not allow numpy, using it costs the checks
    assert without.score < without.max_score and any("imported numpy" in note for note in without.notes)


def test_the_early_word_on_imports_finds_every_import_statement_a_full_walk_finds() -> None:
    """import_notes visits statements only (an import is one, in any block); on every file of the samples and the
    corpus, and on each block an import can hide in, it finds what a walk of every node finds."""
    import ast

    from grader.run.read.syntax import statements, syntax_tree

    nested = ("import a\ndef f():\n    import b\n    if x:\n        from c import d\n    else:\n        try:\n"
              "            import e\n        except E:\n            import g\n        finally:\n            import h\n"
              "class K:\n    def m(self):\n        with w:\n            for i in y:\n                import j\n"
              "            else:\n                import k\n        while q:\n            import l\n        else:\n"
              "            import n\n        async def o():\n            async with p:\n                import r\n"
              "            async for t in u:\n                import s\nmatch z:\n    case 1:\n        import v\n"
              "try:\n    pass\nexcept* E:\n    import w2\n")
    sources = [nested] + [p.read_text(encoding="utf-8", errors="replace")
                          for folder in ("submissions", "corpus") for p in sorted((ROOT / folder).rglob("*.py"))]
    checked = 0
    for source in sources:
        tree = syntax_tree(source)
        if tree is None:
            continue
        every = [ast.dump(n) for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
        mine = [ast.dump(n) for n in statements(tree.body) if isinstance(n, (ast.Import, ast.ImportFrom))]
        assert sorted(mine) == sorted(every), source[:200]
        checked += bool(every)
    assert checked > 100
