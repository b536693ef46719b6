"""A single `grade` overlaps what it can: the grading process computes expected values while the zygote warms
up (a child waits for it), and asks torch whether CUDA is there only where a GPU driver is."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from grader.judge import devices, grading
from grader.judge.catalog import Catalog
from grader.run.confine import isolate
from grader.run.inputs import draw_inputs
from grader.run.read.load import load_submission
from grader.run.sandbox import Group, Sandbox, policy_of
from grader.run.zygote import Zygote

ROOT = Path(__file__).resolve().parent.parent
CORRECT = ROOT / "submissions" / "first-gradient" / "correct_float32.py"


def test_while_the_zygote_warms_up_expected_values_come_first(monkeypatch: pytest.MonkeyPatch,
                                                              sandbox: Sandbox, catalog: Catalog) -> None:
    """Starting a child waits for the zygote: computing first overlaps the two; with a warm one, the child
    starts first and the values are computed while it works."""
    order: list[str] = []
    real_start, real_two_parts, real_expected = Sandbox.start, Sandbox.launch_two_parts, grading._expected
    monkeypatch.setattr(Sandbox, "start", lambda self, *a, **k: order.append("child") or real_start(self, *a, **k))
    monkeypatch.setattr(Sandbox, "launch_two_parts",
                        lambda self, *a, **k: order.append("child") or real_two_parts(self, *a, **k))
    monkeypatch.setattr(grading, "_expected", lambda *a, **k: order.append("expected") or real_expected(*a, **k))
    exercise = catalog.load("first-gradient")
    # its hidden check comes last: a two-part run, hidden part after public part (grader.judge.hidden_runs)
    for warming, want in ((True, ["expected", "child"]), (False, ["child", "expected"])):
        order.clear()
        monkeypatch.setattr(Sandbox, "warming", lambda self, w=warming: w)
        graded = grading.grade_submission(sandbox, load_submission(CORRECT), [exercise], seed=0)
        assert order == want
        assert graded.exercises[0].score == exercise.points


def test_a_zygote_is_warm_once_it_has_said_hello(catalog: Catalog) -> None:
    exercise = catalog.load("node-mul")
    zygote = Zygote(policy_of(exercise), isolate.best_mode())
    assert not zygote.ready()  # not started
    zygote.start()
    try:
        waited = time.monotonic() + 120
        while not zygote.ready() and time.monotonic() < waited:  # warming up: importing the grader's child side
            time.sleep(0.01)
        assert zygote.ready() and zygote.hello is None  # its hello waits, unread: ready() did not wait for it
    finally:
        zygote.close()
    with Sandbox(lean=True) as sandbox:
        sandbox.launch(load_submission(ROOT / "submissions" / "node-mul" / "correct_lesson_style.py"),
                       [Group(exercise, draw_inputs(exercise, 0), 0)]).result()
        assert not sandbox.warming()


def test_no_gpu_device_file_means_no_cuda_without_asking_torch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(devices.os.path, "exists", lambda path: False)
    monkeypatch.setitem(sys.modules, "torch", None)  # importing torch now fails
    assert devices.cuda_available() is False
    monkeypatch.setattr(devices.os.path, "exists", lambda path: path == "/dev/nvidiactl")
    with pytest.raises(ImportError):
        devices.cuda_available()
