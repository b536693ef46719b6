"""`check("node-mul")` in a notebook cell: grade what
this kernel has run, in the sandbox, and show the report.

The kernel's own input history (IPython's raw `In`) is what the notebook defines now:
those cells, in the order they ran, are graded as `grade` grades a notebook (the same
sandbox, the same report), so nothing of the student's runs here beyond what the student
already ran. The notebook file itself is read only for its metadata (which assignment
`check()` checks), and is never run. When the notebook is graded, its `from grader import
check` is neutralised (grader.run.read.notebook), so these calls do nothing there.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grader.core.errors import GraderError
from grader.judge.report import Report
from grader.run.read.load import SourceCell, Submission
from grader.run.read.notebook import CHECKS_OFF, neutralise


@dataclass(frozen=True, slots=True)
class Checked:
    """What check() returns: Jupyter shows it as HTML
    (JupyterLab, Notebook, VS Code), a console as text."""

    report: Report | None
    #: why nothing was graded, in a sentence (the report is None then)
    problem: str = ""

    def _repr_html_(self) -> str:
        from grader.outputs.notebook_html import problem_html, report_html

        return report_html(self.report) if self.report is not None else problem_html(self.problem)

    def __repr__(self) -> str:
        if self.report is None:
            return f"check(): {self.problem}"
        from grader.outputs.render_text import render_text

        return render_text(self.report).rstrip("\n")

    @property
    def score(self) -> float:
        return 0.0 if self.report is None else self.report.score


def check(
    exercise: str | None = None,
    *,
    seed: int = 0,
    exercises: str | Path | None = None,
    notebook: str | Path | None = None,
) -> Checked:
    """Grade what this notebook's kernel has run as `exercise` (an id), or, with
    none, as every exercise of the notebook's assignment (its metadata);
    `exercises`: the exercises folder, found as `grade` finds it; `notebook`: this
    notebook's file, where the kernel cannot tell (read for its metadata only)."""
    try:
        return Checked(_check(exercise, seed, exercises, notebook))
    except GraderError as exc:
        # a problem the student can fix: one sentence, not a traceback in their notebook
        return Checked(None, str(exc))


def _check(
    exercise: str | None, seed: int, folder: str | Path | None, named: str | Path | None
) -> Report:
    from grader.judge.catalog import Catalog
    from grader.judge.session import grade

    shell = _shell()
    cells = executed_cells(_history(shell))
    if not cells:
        raise GraderError("this kernel has run no code yet: run your cells, then check() again.")
    catalog = Catalog.find(Path(folder) if folder is not None else None)
    if named is not None and not (Path(named).suffix == ".ipynb" and Path(named).is_file()):
        raise GraderError(
            f"check(notebook={str(named)!r}): no such notebook here; give this notebook's file "
            "name."
        )
    notebook = Path(named) if named is not None else notebook_file(shell, cells)
    if exercise is not None:
        targets = [catalog.load(exercise)]
    else:
        declared = _declared(notebook)
        if declared is None and notebook is None and len(tied := _candidates(cells)) > 1:
            names = " and ".join(p.name for p in tied[:3]) + (
                " (and more)" if len(tied) > 3 else ""
            )
            raise GraderError(
                f"check() could not tell which notebook this is: {names} in this folder all hold "
                f"the cells this kernel ran. Name it, as in check(notebook=\"{tied[0].name}\"), or "
                "name the exercise, as in check(\"ID\")."
            )
        if declared is None:
            raise GraderError(
                f"which exercise? Call check(\"ID\") with one of: {', '.join(catalog.ids())}."
            )
        kind, ident = declared
        where = f"{notebook.name if notebook is not None else 'this notebook'}'s metadata"
        ids = (ident, None) if kind == "exercise" else (None, ident)
        targets = catalog.declared(ids[0], ids[1], where) or []
    return grade(submission_of(cells, notebook), targets, seed=seed)


def _shell() -> Any:
    try:
        from IPython import get_ipython
    except ImportError:
        get_ipython = None
    shell = get_ipython() if get_ipython is not None else None
    if shell is None:
        raise GraderError(
            "check() grades what a notebook has run: call it in a Jupyter notebook cell. Outside "
            "one, run `grade FILE` in a terminal."
        )
    return shell


def _history(shell: Any) -> list[str]:
    """The raw text of each cell this kernel ran, by
    execution count (index 0 is IPython's empty entry)."""
    raw = getattr(getattr(shell, "history_manager", None), "input_hist_raw", None)
    if not isinstance(raw, list):
        raise GraderError(
            "this kernel keeps no input history (IPython's In), so there is nothing to check."
        )
    return [text if isinstance(text, str) else "" for text in raw]


def executed_cells(history: Sequence[str]) -> list[tuple[int, str]]:
    """(execution count, source) of every cell that ran, oldest first, empty ones left out."""
    return [(count, text) for count, text in enumerate(history) if count > 0 and text.strip()]


def submission_of(cells: Sequence[tuple[int, str]], notebook: Path | None) -> Submission:
    """The cells as a notebook submission, magics and
    shell lines neutralised as when the file is graded.

    Each is labelled "cell N" with N its execution count
    (In [N] on screen), not its place in the file."""
    sources: list[SourceCell] = []
    notes = [
        f"Checked what this kernel ran: {len(cells)} cell{'s' if len(cells) > 1 else ''} in the "
        "order they ran; 'cell N' is In [N]. Restart the kernel and run all cells to check the "
        "notebook as it will be graded."
    ]
    for count, text in cells:
        python, changes = neutralise(text)
        # this very call, and earlier ones: not news
        notes += [
            f"Cell {count}, line {line}: `{shown}` did not run ({why})."
            for line, shown, why in changes
            if why != CHECKS_OFF
        ]
        sources.append(SourceCell(f"cell {count}", python))
    digest = hashlib.sha256("\0".join(cell.source for cell in sources).encode()).hexdigest()
    name = notebook.name if notebook is not None else "notebook"
    return Submission(
        path=Path(name),
        name=name,
        kind="notebook",
        cells=tuple(sources),
        sha256=digest,
        declared_exercise=None,
        declared_assignment=None,
        notes=tuple(notes),
    )


def notebook_file(shell: Any, cells: Sequence[tuple[int, str]]) -> Path | None:
    """The notebook this kernel runs, where it can be known: VS Code and
    Jupyter Server say so; else the one notebook in the working folder that
    carries the grader's metadata, or the one sharing most cells with what ran."""
    namespace = getattr(shell, "user_ns", {})
    for named in (namespace.get("__vsc_ipynb_file__"), os.environ.get("JPY_SESSION_NAME")):
        if isinstance(named, str) and named.endswith(".ipynb") and Path(named).is_file():
            return Path(named)
    best = _candidates(cells)
    return best[0] if len(best) == 1 else None


def _candidates(cells: Sequence[tuple[int, str]]) -> list[Path]:
    """The working folder's notebooks with the grader's metadata that
    share the most cells with what ran: one where it can be told, several
    where they tie (copies of one notebook, a shared check cell)."""
    candidates = [
        path for path in sorted(Path.cwd().glob("*.ipynb")) if _declared(path) is not None
    ]
    if len(candidates) <= 1:
        return candidates
    ran = {text.strip() for _, text in cells}

    def shared(path: Path) -> int:
        from grader.run.read.load import load_submission

        return sum(cell.source.strip() in ran for cell in load_submission(path).cells)

    scores = [(shared(path), path) for path in candidates]
    top = max(score for score, _ in scores)
    return [path for score, path in scores if score == top]


def _declared(notebook: Path | None) -> tuple[str, str] | None:
    """("exercise" | "assignment", id) from the notebook's metadata (read, never run)."""
    if notebook is None:
        return None
    from grader.run.read.load import load_submission

    try:
        submission = load_submission(notebook)
    except GraderError:
        return None
    if submission.declared_assignment is not None:
        return "assignment", submission.declared_assignment
    if submission.declared_exercise is not None:
        return "exercise", submission.declared_exercise
    return None
