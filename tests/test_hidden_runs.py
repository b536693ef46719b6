"""Hidden checks run apart, and only their verdicts reach the report: after the public ones in the
same child, once all of the public part has been taken, or in a child of their own where a public check
comes after a hidden one."""

from __future__ import annotations

import dataclasses
import json
import re
import textwrap
from pathlib import Path
from typing import Any

import pytest

from grader.judge.catalog import Catalog
from grader.judge.check import HIDDEN_ERROR
from grader.judge.hidden_runs import public_part_first
from grader.judge.session import grade
from grader.outputs.formats import render
from grader.outputs.render_json import report_to_dict
from grader.outputs.students import Student
from grader.run.inputs import draw_inputs
from grader.run.sandbox import Sandbox, probes_to_run

ROOT = Path(__file__).resolve().parent.parent
SEED = 3


class CountingSandbox(Sandbox):
    """The real sandbox, counting the runs it is asked for by visibility."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.asked: list[str | None] = []
        #: runs whose hidden part followed the public part in the same child
        self.together = 0

    def start(self, *args: Any, **kwargs: Any) -> Any:
        self.asked.append(kwargs.get("visibility"))
        return super().start(*args, **kwargs)

    def launch_two_parts(self, *args: Any, hidden_groups: Any, **kwargs: Any) -> Any:
        """The public part is asked for now; the hidden part once the public part's result is in, if at all."""
        self.asked.append("public")
        self.together += 1

        def hidden_after(public: Any) -> Any:
            wanted = hidden_groups(public)
            if wanted:
                self.asked.append("hidden")
            return wanted

        return super().launch_two_parts(*args, hidden_groups=hidden_after, **kwargs)


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog(ROOT / "exercises")


@pytest.fixture(scope="module")
def sandbox(catalog: Catalog) -> Any:
    with CountingSandbox(hide=[catalog.root], lean=True) as box:
        yield box


def _everything(report: Any) -> str:
    """Every byte of every format a student or an LMS could read."""
    student = Student(id="s", name="s", submission="s.py")
    texts = [json.dumps(report_to_dict(report))]
    texts += [render(name, report, student=student).decode() for name in ("text", "gradescope", "junit", "feedback")]
    return "\n".join(texts)


def test_what_a_spy_saw_in_the_hidden_run_never_reaches_the_report(catalog: Catalog, sandbox: Any) -> None:
    exercise = catalog.load("node-mul")
    hidden = [i for i, p in enumerate(exercise.probes) if p.visibility == "hidden"]
    inputs = draw_inputs(exercise, SEED)
    # the spy prints every Node's number: the hidden check's products have digits no public input has
    secrets = [repr(inputs[i]["a"] * inputs[i]["b"]) for i in hidden]  # type: ignore[operator]
    secrets += [repr(inputs[i]["a"] * inputs[i]["b"] * inputs[i]["c"]) for i in hidden]  # type: ignore[operator]
    secrets += [exercise.probes[i].code.splitlines()[1].strip() for i in hidden]  # h = x * y: its code
    sandbox.asked.clear()
    report = grade(ROOT / "submissions" / "hostile" / "spies_on_the_hidden_run.py", [exercise], seed=SEED,
                   sandbox=sandbox)
    assert report.score == report.max_score  # right work, right score
    assert sandbox.asked == ["public", "hidden"]
    assert "SPY value" in report.output  # the public run's output is the student's to read
    assert not [s for s in secrets if s in _everything(report)]
    public_only = [repr(inputs[0]["a"])]  # and the spy's public sightings are there, as they always were
    assert all(s in report.output for s in public_only)


def test_a_localization_never_runs_where_the_hidden_checks_ran(catalog: Catalog, sandbox: Any) -> None:
    # the sample's new nodes start with the hidden check's first number once it has run; its wrong slope asks
    # for a localization, whose evidence quotes what it read: made after the hidden checks, it quoted that number
    exercise = catalog.load("node-mul")
    inputs = draw_inputs(exercise, SEED)
    secrets = [repr(inputs[i]["a"]) for i, p in enumerate(exercise.probes) if p.visibility == "hidden"]
    report = grade(ROOT / "submissions" / "hostile" / "leaks_through_localization.py", [exercise], seed=SEED,
                   sandbox=sandbox)
    everything = _everything(report)
    assert not [s for s in secrets if s in everything]
    named = {c.diagnosis.mistake for x in report.exercises for c in x.checks if c.diagnosis is not None}
    assert named == {"wrong-local-slope"}  # its real mistake, seen by a localization of its own


def test_a_hidden_error_shows_no_type_message_or_line(catalog: Catalog, sandbox: Any, tmp_path: Path) -> None:
    exercise = catalog.load("node-mul")
    source = (ROOT / "submissions" / "node-mul" / "correct_lesson_style.py").read_text()
    # an exception class named after the inputs, raised only in the hidden check: out = (h * z) * h
    source += textwrap.dedent("""

        _backward = Node.backward

        def backward(self):
            if len(self.parents) == 2 and self.parents[0].parents and self.parents[0].parents[0] is self.parents[1]:
                raise type(f"E_{abs(self.value):.6f}".replace(".", "_"), (Exception,), {})(f"value {self.value!r}")
            _backward(self)

        Node.backward = backward
        """)
    path = tmp_path / "leaky.py"
    path.write_text(source)
    report = grade(path, [exercise], seed=SEED, sandbox=sandbox)
    checks = {c.name: c for e in report.exercises for c in e.checks}
    (secret,) = [c for c in checks.values() if c.visibility == "hidden"]
    assert secret.status == "error" and secret.problem == HIDDEN_ERROR
    assert (secret.cause.detail, secret.cause.line) == ("", None)
    assert not re.search(r"E_\d+_\d{6}", _everything(report))


def test_no_hidden_run_where_the_file_does_not_load(catalog: Catalog, sandbox: Any, tmp_path: Path) -> None:
    path = tmp_path / "broken.py"
    path.write_text("class Node(:\n")
    sandbox.asked.clear()
    report = grade(path, [catalog.load("node-mul")], seed=SEED, sandbox=sandbox)
    assert sandbox.asked == ["public"]
    hidden = [c for e in report.exercises for c in e.checks if c.visibility == "hidden"]
    # what kept it from running is the public run's, which the report shows anyway
    assert hidden and all(c.status == "error" and c.problem.startswith("Not run: your file did not load")
                          and c.cause.detail == "SyntaxError" for c in hidden)


def test_an_exercise_without_hidden_checks_runs_once(catalog: Catalog, sandbox: Any) -> None:
    full = catalog.load("node-mul")
    exercise = dataclasses.replace(full, probes=tuple(p for p in full.probes if p.visibility == "public"))
    sandbox.asked.clear()
    report = grade(ROOT / "submissions" / "node-mul" / "correct_lesson_style.py", [exercise], seed=SEED,
                   sandbox=sandbox)
    assert sandbox.asked == [None] and report.score == report.max_score


@pytest.mark.slow
def test_the_hidden_run_replays_the_public_checks_before_its_own(catalog: Catalog) -> None:
    """State a submission keeps between calls (weights at module level) meets a hidden check as in one run: the
    hidden checks' child makes every check up to the last hidden one, and only the hidden ones are read."""
    exercise = catalog.load("first-gradient")
    every = probes_to_run(exercise, "cpu")
    hidden = [i for i in every if exercise.probes[i].visibility == "hidden"]
    assert hidden and probes_to_run(exercise, "cpu", "public") == tuple(i for i in every if i not in hidden)
    assert probes_to_run(exercise, "cpu", "hidden") == tuple(i for i in every if i <= max(hidden))
    # the samples that keep state: right on a fresh call only, so the hidden check fails as it did in one run
    for sample, exercise_id in (("first-gradient/shared_tensors.py", "first-gradient"),
                                ("zero-grad-fix/keeps_weights_between_calls.py", "zero-grad-fix")):
        report = grade(ROOT / "submissions" / sample, [catalog.load(exercise_id)], seed=SEED)
        assert [c.status for e in report.exercises for c in e.checks if c.visibility == "hidden"] == ["failed"], sample


def test_what_a_submission_writes_after_its_public_checks_never_reaches_the_report(catalog: Catalog,
                                                                                  sandbox: Any) -> None:
    """Its hidden checks follow in the same process: a thread on the raw descriptors, unflushed text and an exit
    handler write every number it sees, and nothing of the hidden check is in any format."""
    exercise = catalog.load("node-mul")
    hidden = [i for i, p in enumerate(exercise.probes) if p.visibility == "hidden"]
    inputs = draw_inputs(exercise, SEED)
    secrets = [repr(inputs[i][name]) for i in hidden for name in ("a", "b", "c")]
    secrets += [repr(inputs[i]["a"] * inputs[i]["b"]) for i in hidden]  # type: ignore[operator]
    sandbox.asked.clear()
    report = grade(ROOT / "submissions" / "hostile" / "prints_after_its_public_checks.py", [exercise], seed=SEED,
                   sandbox=sandbox)
    assert sandbox.asked == ["public", "hidden"]
    assert report.score == report.max_score
    assert not [s for s in secrets if s in _everything(report)]
    assert repr(inputs[0]["a"]) in report.output  # what it wrote of the public checks is its own to read


def test_a_public_check_after_a_hidden_one_keeps_the_hidden_checks_in_a_child_of_their_own(catalog: Catalog,
                                                                                          sandbox: Any) -> None:
    """An exercise whose hidden check comes before public ones (node-backward's, moved up among them): the public
    checks after it must not meet the state it leaves, so its hidden checks replay the public ones before them in a
    second child."""
    shipped = catalog.load("node-backward")
    hidden = [p for p in shipped.probes if p.visibility == "hidden"]
    public = [p for p in shipped.probes if p.visibility != "hidden"]
    exercise = dataclasses.replace(shipped, probes=(*public[:5], *hidden, *public[5:]))
    assert not public_part_first(exercise, "cpu")
    sandbox.asked.clear()
    sandbox.together = 0
    report = grade(ROOT / "exercises" / "node-backward" / "solution.py", [exercise], seed=SEED, sandbox=sandbox)
    assert sandbox.asked == ["public", "hidden"] and sandbox.together == 0 and report.score == report.max_score
    sandbox.asked.clear()
    report = grade(ROOT / "exercises" / "node-backward" / "solution.py", [shipped], seed=SEED, sandbox=sandbox)
    assert sandbox.asked == ["public", "hidden"] and sandbox.together == 1 and report.score == report.max_score


def test_every_shipped_exercise_puts_its_hidden_checks_last(catalog: Catalog) -> None:
    """Then a submission's hidden checks follow its public ones in the same child, once the public part has been
    taken, and no second child replays the public checks (a torch exercise's replay cost a second torch run;
    docs/authoring.md says so)."""
    courses = [catalog, Catalog(ROOT / "examples" / "courses" / "micrograd")]
    late = [f"{c.root.name}/{i}" for c in courses for i in c.ids() for device in ("cpu", "cuda")
            if not public_part_first(c.load(i), device)]
    assert not late, late
