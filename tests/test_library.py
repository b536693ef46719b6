"""Library homework: a student's whole package, read hostile-first, graded op by op with the course's reference
standing in for every op a check does not grade (examples/courses/needle-hw1)."""

from __future__ import annotations

import io
import os
import shutil
import stat
import tarfile
import zipfile
from pathlib import Path

import pytest

from grader.core.values import Array, BadReply, ErrorInfo, Number, Traced, TracedNode, from_data
from grader.judge.catalog import Catalog
from grader.judge.library.standin import evaluate
from grader.judge.session import grade
from grader.run.read.load import SubmissionError
from grader.run.read.package import MAX_SOURCE_BYTES, read_package

ROOT = Path(__file__).resolve().parent.parent
COURSE = Catalog(ROOT / "examples" / "courses" / "needle-hw1")
LIBRARY = COURSE.library()
REFERENCE = ROOT / "examples" / "courses" / "needle-hw1" / "reference"
OPS = "python/needle/ops/ops_mathematic.py"


def _repository(tmp_path: Path, changes: dict[str, tuple[str, str]] | None = None) -> Path:
    """A copy of the reference repository as a student's clone (with their own tests beside it), with each
    `changes[file] = (old, new)` made in it."""
    repo = tmp_path / "repo"
    shutil.copytree(REFERENCE, repo)
    (repo / "tests").mkdir()
    (repo / "tests" / "test_autograd_hw.py").write_text("raise SystemExit('never read')\n")
    (repo / "conftest.py").write_text("import os; os.system('echo pwned')\n")
    for rel, (old, new) in (changes or {}).items():
        text = (repo / rel).read_text()
        assert old in text, old
        (repo / rel).write_text(text.replace(old, new))
    return repo


def _zip(folder: Path, out: Path, top: str = "repo-main") -> Path:
    with zipfile.ZipFile(out, "w") as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                archive.write(path, f"{top}/{path.relative_to(folder).as_posix()}")
    return out


def _scores(report: object) -> dict[str, str]:
    return {c.name: c.status for e in report.exercises for c in e.checks}  # type: ignore[attr-defined]


# ------------------------------------------------------------------------------------------------
# Reading a package


def test_a_folder_a_zip_and_a_tarball_give_the_same_package_without_the_students_other_files(tmp_path: Path) -> None:
    assert LIBRARY is not None
    repo = _repository(tmp_path)
    tarball = tmp_path / "repo.tar.gz"
    with tarfile.open(tarball, "w:gz") as archive:
        archive.add(repo, "student-repo")
    read = [read_package(p, LIBRARY) for p in (repo, _zip(repo, tmp_path / "repo.zip"), tarball)]
    files = {tuple(f.label for f in r.package) for r in read}
    assert files == {("apps/simple_ml.py", "python/needle/__init__.py", "python/needle/autograd.py",
                      "python/needle/ops/__init__.py", OPS)}
    assert len({r.sha256 for r in read}) == 1


@pytest.mark.parametrize("name", ["../python/needle/ops/ops_mathematic.py", "/etc/python/needle/autograd.py",
                                  "repo/..\\python/needle/autograd.py", "C:/python/needle/autograd.py"])
def test_an_archive_entry_that_leads_outside_is_refused(tmp_path: Path, name: str) -> None:
    assert LIBRARY is not None
    out = tmp_path / "slip.zip"
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("python/needle/__init__.py", "")
        archive.writestr(name, "print('outside')\n")
    with pytest.raises(SubmissionError, match="leads outside the archive"):
        read_package(out, LIBRARY)


def test_a_link_among_the_courses_files_is_refused_in_a_folder_a_zip_and_a_tarball(tmp_path: Path) -> None:
    assert LIBRARY is not None
    repo = _repository(tmp_path)
    target = repo / OPS
    target.unlink()
    target.symlink_to("/etc/passwd")
    with pytest.raises(SubmissionError, match="is a link"):
        read_package(repo, LIBRARY)
    out = tmp_path / "links.zip"
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("python/needle/__init__.py", "")
        info = zipfile.ZipInfo(OPS)
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
        archive.writestr(info, "/etc/passwd")
    with pytest.raises(SubmissionError, match="is a link"):
        read_package(out, LIBRARY)
    tarball = tmp_path / "links.tar"
    with tarfile.open(tarball, "w") as archive:
        archive.add(repo, "repo")
    with pytest.raises(SubmissionError, match="is a link"):
        read_package(tarball, LIBRARY)


def test_a_fifo_among_the_courses_files_is_refused_without_blocking(tmp_path: Path) -> None:
    assert LIBRARY is not None
    repo = _repository(tmp_path)
    (repo / OPS).unlink()
    os.mkfifo(repo / OPS)
    with pytest.raises(SubmissionError, match="not a regular file"):
        read_package(repo, LIBRARY)


def test_a_zip_bomb_stops_at_the_cap_whatever_its_header_says(tmp_path: Path) -> None:
    assert LIBRARY is not None
    out = tmp_path / "bomb.zip"
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("python/needle/__init__.py", "")
        archive.writestr(OPS, b"#" * (MAX_SOURCE_BYTES * 4))
    assert out.stat().st_size < 100_000
    with pytest.raises(SubmissionError, match="the cap on size"):
        read_package(out, LIBRARY)


def test_a_tarball_that_unpacks_to_too_much_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert LIBRARY is not None
    monkeypatch.setattr("grader.run.read.archive.MAX_UNPACKED_BYTES", 1 << 20)
    out = tmp_path / "big.tar.gz"
    with tarfile.open(out, "w:gz") as archive:
        data = b"\0" * (4 << 20)
        info = tarfile.TarInfo("repo/data/train-images-idx3-ubyte")
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
        after = tarfile.TarInfo("repo/python/needle/__init__.py")  # the stream must pass the data to reach it
        archive.addfile(after, io.BytesIO(b""))
    with pytest.raises(SubmissionError, match="unpacks to over"):
        read_package(out, LIBRARY)


def test_a_repository_without_the_courses_files_says_which_it_takes(tmp_path: Path) -> None:
    assert LIBRARY is not None
    (tmp_path / "notes.py").write_text("x = 1\n")
    with pytest.raises(SubmissionError, match=r"python/needle/\*\*/\*\.py"):
        read_package(tmp_path, LIBRARY)


# ------------------------------------------------------------------------------------------------
# Op by op


def test_a_broken_summation_costs_only_summations_checks(tmp_path: Path) -> None:
    """MatMul's batch gradient is built with summation: the reference computes it, so MatMul keeps its points
    while Summation's own checks fail."""
    repo = _repository(tmp_path, {OPS: ("        return array_api.sum(a, axis=self.axes)",
                                        "        return array_api.sum(a, axis=self.axes) * 0.5")})
    assert LIBRARY is not None
    report = grade(read_package(repo, LIBRARY), [COURSE.load("matmul"), COURSE.load("shapes")], seed=3,
                   isolation="none")
    matmul, shapes = report.exercises
    assert matmul.score == matmul.max_score
    statuses = {c.name: c.status for c in shapes.checks}
    assert statuses["summation compute"] == "failed"
    assert statuses["broadcast_to gradient"] == "passed"  # its gradient is built with summation too


def test_a_package_that_cannot_be_imported_says_where(tmp_path: Path) -> None:
    repo = _repository(tmp_path, {OPS: ("class EWiseAdd(TensorOp):", "class EWiseAdd(TensorOp)")})
    assert LIBRARY is not None
    report = grade(read_package(repo, LIBRARY), [COURSE.load("matmul")], seed=0, isolation="none")
    assert report.exercises[0].score == 0
    text = " ".join(report.exercises[0].problems) + " ".join(c.message for c in report.exercises[0].checks)
    assert "SyntaxError" in text and f"{OPS}, line 8" in text, text


def test_a_graded_op_keeps_the_students_value_and_the_others_are_the_references() -> None:
    """A traced product out_grad * b whose EWiseMul the check grades keeps the student's value; the same graph
    with EWiseMul not graded is computed by the reference."""
    import numpy

    from grader.judge.library.standin import reference_standins

    ops = reference_standins(COURSE.load("elementwise"))
    left = Array((2, 3), tuple(float(i) for i in range(1, 7)))
    right = Array((2, 3), tuple(float(i) for i in range(2, 8)))
    wrong = Array((2, 3), (0.0,) * 6)
    graph = Traced((TracedNode(None, (), (), left), TracedNode(None, (), (), right),
                    TracedNode("EWiseMul", (), (0, 1), wrong)))
    assert evaluate(graph, ops, frozenset({"EWiseMul"})) == wrong
    product = evaluate(graph, ops, frozenset())
    assert isinstance(product, Array)
    assert product.data == tuple((numpy.arange(1, 7) * numpy.arange(2, 8)).astype(float))


def test_a_made_up_graph_is_not_computed_past_the_caps() -> None:
    """A (2048, 1) @ (1, 2048) product in a graph the submission sends keeps its own value, never computed here."""
    from grader.judge.library.standin import reference_standins

    ops = reference_standins(COURSE.load("matmul"))
    tall = Array((2048, 1), (1.0,) * 2048)
    claimed = Array((1,), (7.0,))
    graph = Traced((TracedNode(None, (), (), tall), TracedNode("Transpose", (), (0,), Array((1, 2048), tall.data)),
                    TracedNode("MatMul", (), (0, 1), claimed)))
    assert evaluate(graph, ops, frozenset()) == claimed


def test_a_traced_reply_is_parsed_strictly() -> None:
    leaf = {"op": None, "settings": {}, "inputs": [], "value": {"t": "num", "v": 1.0}}
    ahead = {"op": "Exp", "settings": {}, "inputs": [1], "value": {"t": "num", "v": 1.0}}
    with pytest.raises(BadReply):
        from_data({"t": "graph", "nodes": [ahead, leaf]})
    nested = {**leaf, "value": {"t": "graph", "nodes": [leaf]}}
    with pytest.raises(BadReply):
        from_data({"t": "graph", "nodes": [nested]})
    with pytest.raises(BadReply):
        from_data({"t": "graph", "nodes": []})
    parsed = from_data({"t": "list", "v": [{"t": "graph", "nodes": [leaf]}]})
    assert not isinstance(parsed, ErrorInfo)


# ------------------------------------------------------------------------------------------------
# The integration checks: the student's code alone, traced to an op


def test_a_broken_log_keeps_the_losss_formula_and_the_epoch_is_traced_to_log(tmp_path: Path) -> None:
    """Log.compute off by a factor: the loss's own check keeps its points (the reference's Log stands in); the
    epoch, the student's code alone, fails and is traced by value to Log."""
    repo = _repository(tmp_path, {OPS: ("        return array_api.log(a)", "        return array_api.log(a) * 1.5")})
    assert LIBRARY is not None
    report = grade(read_package(repo, LIBRARY), [COURSE.load("simple-ml")], seed=2, isolation="none")
    checks = {c.name: c for c in report.exercises[0].checks}
    assert checks["softmax loss"].status == "passed"
    epoch = checks["an epoch of SGD"]
    assert epoch.status == "failed" and epoch.traced is not None
    assert (epoch.traced.ops, epoch.traced.how) == (("Log",), "value")
    from grader.outputs.formats import render

    text = render("text", report).decode()
    assert "traced   Traced to Log: the first wrong value in this check came from it" in text


def test_a_broken_gradient_is_traced_to_its_ops_own_failed_check(tmp_path: Path) -> None:
    """Exp.gradient without the chain factor: no value is wrong, so the gradient's check names the ops it used
    whose own checks failed, Exp's among them."""
    repo = _repository(tmp_path, {OPS: ("        return out_grad * exp(node.inputs[0])",
                                        "        return exp(node.inputs[0])")})
    assert LIBRARY is not None
    report = grade(read_package(repo, LIBRARY), [COURSE.load("elementwise"), COURSE.load("simple-ml")], seed=2,
                   isolation="none")
    gradient = next(c for c in report.exercises[1].checks if c.name == "gradient of the softmax loss")
    assert gradient.status == "failed" and gradient.traced is not None
    assert gradient.traced.how == "own-check" and gradient.traced.ops == ("Exp",)
    assert gradient.traced.checks == ("elementwise: exp gradient",)
    import json

    import jsonschema

    from grader.outputs.render_json import render_json, report_from_dict, report_schema

    data = json.loads(render_json(report))
    jsonschema.validate(data, report_schema())
    assert report_from_dict(data).exercises[1].checks == report.exercises[1].checks


def test_a_setting_named_like_the_ops_method_never_replaces_the_references_compute() -> None:
    """A Summation node whose op carries `compute` and a private setting: the reference's own compute sums."""
    from grader.judge.library.standin import reference_standins

    standins = reference_standins(COURSE.load("shapes"))
    leaf = Array((2, 3), tuple(float(i) for i in range(6)))
    settings = (("axes", Number(1.0)), ("compute", Number(0.0)), ("_hidden", Number(1.0)))
    graph = Traced((TracedNode(None, (), (), leaf), TracedNode("Summation", settings, (0,), Array((2,), (9.0, 9.0)))))
    assert evaluate(graph, standins, frozenset()) == Array((2,), (3.0, 12.0))


def test_a_shape_setting_of_billions_is_never_computed_here() -> None:
    """BroadcastTo to (4, 10**9) claimed by a traced node keeps the student's value; the reference never runs it."""
    from grader.core.values import Seq
    from grader.judge.library.standin import reference_standins

    standins = reference_standins(COURSE.load("shapes"))
    leaf = Array((4, 1), (1.0, 2.0, 3.0, 4.0))
    shape = Seq((Number(4.0), Number(1e9)), "tuple")
    claimed = Array((1,), (5.0,))
    graph = Traced((TracedNode(None, (), (), leaf), TracedNode("BroadcastTo", (("shape", shape),), (0,), claimed)))
    assert evaluate(graph, standins, frozenset()) == claimed


def test_a_repository_importing_its_package_from_the_root_as_pytest_does_is_graded_as_it_runs(tmp_path: Path) -> None:
    """`from python.needle.ops import ...` in apps/simple_ml.py works under `python -m pytest` run from the root (the
    root is on sys.path): the package is imported twice, and a loss built with both copies' ops is still read as
    one graph. (Its backward mixes the copies' Tensors, which fails outside the grader too.)"""
    simple_ml = "apps/simple_ml.py"
    repo = _repository(tmp_path, {
        simple_ml: ("import needle as ndl\n", "import needle as ndl\nfrom python.needle.ops import summation\n")})
    text = (repo / simple_ml).read_text().replace("return ndl.summation(log_total - picked) / batch",
                                                  "return summation(log_total - picked) / batch")
    (repo / simple_ml).write_text(text)
    assert LIBRARY is not None
    report = grade(read_package(repo, LIBRARY), [COURSE.load("simple-ml")], seed=0, isolation="none")
    assert _scores(report)["softmax loss"] == "passed", report.exercises[0].checks[0].problem


def test_a_gradient_that_writes_its_mask_into_the_nodes_own_array_is_graded_on_what_it_returns(tmp_path: Path) -> None:
    """ReLU.gradient reusing node.realize_cached_data() as its mask, in place: the gradient is right, and the op's
    value was read before it ran."""
    old = ("        gate = Tensor(node.inputs[0].realize_cached_data() > 0, dtype=out_grad.dtype, "
           "requires_grad=False)\n        return out_grad * gate")
    new = ("        out = node.realize_cached_data()\n        out[out > 0] = 1\n"
           "        return out_grad * Tensor(out, requires_grad=False)")
    repo = _repository(tmp_path, {OPS: (old, new)})
    assert LIBRARY is not None
    report = grade(read_package(repo, LIBRARY), [COURSE.load("elementwise")], seed=0, isolation="none")
    assert _scores(report)["relu gradient"] == "passed"


def test_a_stray_from_import_of_a_refused_module_costs_nothing_until_used(tmp_path: Path) -> None:
    """An editor's `from turtle import pd` atop the ops module (turtle is refused: it reaches for a display): the
    name is taken as a placeholder that fails when used, so the package imports and its ops keep their points;
    the report says what was refused."""
    repo = _repository(tmp_path)
    ops = repo / OPS
    ops.write_text("from turtle import pd\n" + ops.read_text())
    assert LIBRARY is not None
    report = grade(read_package(repo, LIBRARY), [COURSE.load("matmul")], seed=0, isolation="none")
    assert report.exercises[0].score == report.exercises[0].max_score, _scores(report)
    assert any("imported turtle" in note for note in report.notes)


def test_ops_are_computed_as_they_are_made_as_the_courses_tests_do(tmp_path: Path) -> None:
    """A MatMul.gradient that reads an input's cached_data directly (computed once it is made, in needle's default
    eager mode) is graded as the course's own tests run it."""
    reads = "        assert node.cached_data.ndim >= 2 and left.cached_data is not None\n"
    repo = _repository(tmp_path, {OPS: ("        left, right = node.inputs\n",
                                        "        left, right = node.inputs\n" + reads)})
    assert LIBRARY is not None
    report = grade(read_package(repo, LIBRARY), [COURSE.load("matmul")], seed=0, isolation="none")
    assert report.exercises[0].score == report.exercises[0].max_score, _scores(report)


def test_an_op_not_written_yet_does_not_cost_the_ops_built_on_it(tmp_path: Path) -> None:
    """Summation.compute still raising NotImplementedError: MatMul's batch gradient sums with it; the check runs
    again with each op computed only when read, and the course's Summation stands in."""
    repo = _repository(tmp_path, {OPS: ("        return array_api.sum(a, axis=self.axes)",
                                        "        raise NotImplementedError()")})
    assert LIBRARY is not None
    report = grade(read_package(repo, LIBRARY), [COURSE.load("matmul"), COURSE.load("shapes")], seed=0,
                   isolation="none")
    matmul = report.exercises[0]
    assert matmul.score == matmul.max_score, _scores(report)
    assert _scores(report)["summation compute"] == "error"


def test_an_epoch_a_few_parts_in_a_hundred_thousand_off_keeps_its_points(tmp_path: Path) -> None:
    """An epoch whose weights are off by a few parts in 10**5 (what float32 data or an epsilon in a division gives
    over two steps; measured on a student's repository whose own tests compare the weights' norms): the epoch's
    check allows 1e-4."""
    repo = _repository(tmp_path, {"apps/simple_ml.py": (
        "        W1 = ndl.Tensor(W1.realize_cached_data() - lr * W1.grad.realize_cached_data())",
        "        W1 = ndl.Tensor(W1.realize_cached_data() - lr * (1 + 3e-5) * W1.grad.realize_cached_data())")})
    assert LIBRARY is not None
    report = grade(read_package(repo, LIBRARY), [COURSE.load("simple-ml")], seed=0, isolation="none")
    assert _scores(report)["an epoch of SGD"] == "passed", report.exercises[0].checks[2].problem
