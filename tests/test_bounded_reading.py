"""What the trusted side does with a submission's content is bounded and total: notebooks, magics,
cell ids, syntax trees, file names of any bytes, and text no encoder takes; a failure is that student's result."""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from pathlib import Path
from xml.etree import ElementTree

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.cli import main
from grader.core.text import clean_data, file_name
from grader.course.batch import declared_by
from grader.course.classlist import discover
from grader.course.selection import Target, files_in, load_selected, select
from grader.judge.catalog import Catalog
from grader.outputs.formats import FORMATS, render
from grader.outputs.students import Student
from grader.run.read import magics, syntax
from grader.run.read.load import SubmissionError, load_submission
from grader.run.read.notebook import MAX_CELLS, MAX_LINES, NotebookError, neutralise, read_notebook

ROOT = Path(__file__).resolve().parent.parent
HONEST = (ROOT / "submissions" / "node-mul" / "correct_lesson_style.py").read_text()
DEEP = "total = " + "+".join(["1"] * 12000)


def notebook_bytes(*sources: str, meta: object = None, **extra: object) -> bytes:
    cells = [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": s}
             for s in sources]
    return json.dumps({"nbformat": 4, "nbformat_minor": 4, "metadata": {"autograd_grader": meta or {}},
                       "cells": cells, **extra}).encode()


def test_neutralising_parses_a_cell_a_bounded_number_of_times(monkeypatch: pytest.MonkeyPatch) -> None:
    parses: list[int] = []
    monkeypatch.setattr(magics, "syntax_tree", lambda source: parses.append(len(source)) or syntax.syntax_tree(source))
    for lines in (12, 1000, 20000):  # it once parsed the cell again for every magic line
        parses.clear()
        out, changes = neutralise("\n".join(["%time x = 1", "!ls", "y = !pwd", "x?"] * (lines // 4)) + "\nz = (1 +\n2)")
        assert len(changes) == lines and out.count("\n") == lines + 1
        assert len([n for n in parses if n > 100]) <= 3  # the whole cell, at most three times; each line once alone
    assert magics.neutralise("!echo '\n%x")[0] == "pass\npass"  # a shell line's quote opens no string


def test_a_notebook_of_cells_without_ids_and_deep_cells_reads(tmp_path: Path) -> None:
    data = json.loads(notebook_bytes(HONEST, DEEP, "%%bash\nrm -rf /"))
    data["nbformat_minor"] = 5
    data["cells"] += [{"cell_type": "markdown", "metadata": {}, "source": "x"}] * (MAX_CELLS - 3)
    nb = read_notebook(tmp_path / "hw.ipynb", json.dumps(data).encode())  # one pass over the ids, not one per id
    assert [c.source for c in nb.cells][:2] == [HONEST, DEEP]
    assert nb.notes[0].startswith("Cells 1, 2, 3, 4, 5, 6, 7, 8 and more had no id")


@pytest.mark.parametrize(("data", "cap"), [
    (json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{}] * (MAX_CELLS + 1)}).encode(),
     "the cap on cells"),
    (notebook_bytes("x = 1\n" * MAX_LINES), "the cap on lines"),
    (notebook_bytes("x = 1", meta={"deep": json.loads("[" * 70 + "]" * 70)}), "the cap on nesting"),
    (b'{"nbformat": 4, "metadata": ' + b"[" * 5000 + b"]" * 5000 + b"}", "the cap on nesting"),
])
def test_each_cap_says_which_it_is(tmp_path: Path, data: bytes, cap: str) -> None:
    with pytest.raises(NotebookError, match=cap):
        read_notebook(tmp_path / "hw.ipynb", data)


def test_text_no_encoder_takes_becomes_text_every_format_writes(tmp_path: Path) -> None:
    path = tmp_path / "hw.ipynb"
    path.write_bytes(notebook_bytes('s = "\ud800"\n%magic \udfff', meta={"exercise": "node-mul\ud800"}))
    submission = load_submission(path)
    assert submission.cells[0].source == 's = "\ufffd"\npass' and submission.declared_exercise == "node-mul\ufffd"
    cleaned = clean_data({"\udc80": ["\ud800", {"k": "\udfff"}], "n": 1})
    assert cleaned == {"\ufffd": ["\ufffd", {"k": "\ufffd"}], "n": 1}
    assert file_name(os.fsdecode(b"caf\xe9")) == "caf\\xe9"
    assert Student(id="\udce9", name="", submission="").id == "\\xe9"
    assert Student(id="a\x1b[2J\u202e", name="", submission="").id == "a\\x1b[2J\\u202e"  # nothing for a terminal


def test_every_format_writes_a_report_holding_lone_surrogates() -> None:
    from grader.judge.report import Cause, build_report, not_graded

    exercise = Catalog(ROOT / "exercises").load("node-mul")
    report = build_report(not_graded([exercise], "raised \ud800\udfff", Cause("unreadable")), submission="\udce9.py",
                          sha256="0" * 64, seed=0)
    for fmt in FORMATS:
        data = render(fmt, report, student=Student(id="\udce9", name="\ud800", submission="\udce9.py"))
        text = data.decode("utf-8")  # valid UTF-8, and no JSON escape of a surrogate either
        assert "raised" in text and not re.search(r"\\u[dD][89a-fA-F]", text), fmt


def test_the_file_selection_and_the_batch_read_deep_helpers_and_names_of_any_bytes(tmp_path: Path) -> None:
    folder = tmp_path / "student"
    folder.mkdir()
    (folder / "engine.py").write_text(HONEST)
    (folder / "helper.py").write_text(DEEP)
    odd = os.path.join(os.fsencode(folder), b"n\xe4me.py")
    with open(odd, "w") as handle:
        handle.write("x = 1\n")
    os.mkfifo(folder / "fifo.py")  # would block a plain read for ever
    files = files_in(folder)
    assert sorted(f.name for f in files) == ["engine.py", "helper.py", "n\\xe4me.py"]
    submission = load_selected(select(files, Target()), files)
    assert submission.name == "engine.py" and "helper.py" in {s.label for s in submission.siblings}
    klass = discover(tmp_path, None, None)
    assert [e.student.id for e in klass.entries] == ["student"]
    assert [e.id for e in declared_by(klass.entries[0], Catalog(ROOT / "exercises"))] == ["node-mul"]
    with pytest.raises(SubmissionError, match="is not a regular file"):
        load_submission(folder / "fifo.py")


#: what hostile text is made of: lone surrogates, bidi marks, terminal escapes, NUL, IPython sigils
characters = st.one_of(st.sampled_from(["\ud800", "\udfff", "\u202e", "\x1b[2J", "\x00", "%", "!", "?", "\n", "'''"]),
                       st.integers(0, 0x10FFFF).map(chr))
texts = st.lists(characters, max_size=30).map("".join)


@st.composite
def hostile_notebooks(draw: st.DrawFn) -> bytes:
    """A notebook with hostile cells, metadata and ids; sometimes cut short."""
    exercise = draw(st.sampled_from(["node-mul", "../node-mul", "/etc", "node-mul\0", "\uff4eode-mul"]) | texts)
    sources = [HONEST] + draw(st.lists(st.lists(st.sampled_from(["%time x = 1", "!rm -rf /", "x = !ls", "x?", DEEP])
                                                | texts, max_size=4).map("\n".join), max_size=4))
    meta = draw(st.recursive(st.just(exercise), lambda inner: st.lists(inner, max_size=2), max_leaves=4))
    data = notebook_bytes(*draw(st.permutations(sources)), meta={"exercise": exercise, "x": meta})
    return data[:draw(st.integers(len(data) // 2, len(data)))] if draw(st.booleans()) else data


def raising(message: list[int], printed: bytes) -> str:
    raises = (f"        sys.stdout.buffer.write({printed!r})\n"
              f"        raise ValueError(''.join(map(chr, {message!r})))\n\n    def _backward(self):\n")
    return "import sys\n" + HONEST.replace("    def backward(self):\n", "    def backward(self):\n" + raises, 1)


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(notebook=hostile_notebooks(), name=st.binary(min_size=1, max_size=12).filter(lambda b: b"/" not in b and
                                                                                     b"\0" not in b),
       message=st.lists(st.integers(1, 0x10FFFF), max_size=20), printed=st.binary(max_size=40))
def test_hostile_notebooks_names_and_messages_in_a_batch_beside_honest_students(
        notebook: bytes, name: bytes, message: list[int], printed: bytes) -> None:
    if os.geteuid() != 0:
        pytest.skip("a batch grades under landlock or stronger, which needs root here")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "class"
        folder.mkdir()
        (folder / "a_notebook.ipynb").write_bytes(notebook)
        with open(os.path.join(os.fsencode(folder), b"b_" + name + b".py"), "w") as handle:
            handle.write(HONEST)
        with open(os.path.join(os.fsencode(folder), b"stray_" + name + b".txt"), "w") as handle:
            handle.write("not anyone's work")  # a stray file of such a name once crashed writing batch.json
        (folder / "c_message.py").write_text(raising(message, printed))
        shutil.copy(ROOT / "submissions" / "node-mul" / "correct_lesson_style.py", folder / "z_honest.py")
        out = Path(tmp) / "reports"
        assert main(["batch", str(folder), "--out", str(out), "-j", "1", "--time-limit", "5"]) == 0
        done = {}
        for marker in (out / "students").glob("*/done.json"):
            row = json.loads(marker.read_text())
            done[row["student"]["id"]] = (row["outcome"], json.loads((marker.parent / "report.json").read_text()))
            ElementTree.parse(marker.parent / "junit.xml")
            json.loads((marker.parent / "results.json").read_text())
        odd = file_name(os.fsdecode(b"b_" + name))
        assert set(done) == {"a_notebook", odd, "c_message", "z_honest"}
        assert {outcome for outcome, _ in done.values()} <= {"graded", "unreadable"}  # never the grader's
        assert done["z_honest"][1]["score"] == done[odd][1]["score"] == 10
        assert done["c_message"][1]["score"] <= 1 and done["a_notebook"][1]["score"] <= 10
