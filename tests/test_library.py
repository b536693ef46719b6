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

from grader.core.values import Array, BadReply, ErrorInfo, Traced, TracedNode, from_data
from grader.judge.catalog import Catalog
from grader.judge.grading import grade
from grader.judge.library.standin import evaluate
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

    from grader.judge.library.reference import reference_standins

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
    from grader.judge.library.reference import reference_standins

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
