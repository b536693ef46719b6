"""autograd-grader: grade autograd exercises safely, with feedback that names the mistake."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

__all__ = [
    "Catalog",
    "Exercise",
    "ExitCode",
    "GraderError",
    "Report",
    "Sandbox",
    "__version__",
    "check",
    "grade",
    "load_exercise",
]

if TYPE_CHECKING:
    from grader.core.errors import ExitCode, GraderError
    from grader.core.exercise import Exercise
    from grader.course.notebook_check import check
    from grader.judge.catalog import Catalog
    from grader.judge.report import Report
    from grader.judge.session import grade
    from grader.judge.spec import load_exercise
    from grader.run.sandbox import Sandbox

# Imported on first use: `grade --help` and `grade list` should not pay for importing torch.
_LAZY = {
    "Catalog": "grader.judge.catalog",
    "ExitCode": "grader.core.errors",
    "GraderError": "grader.core.errors",
    "grade": "grader.judge.session",
    "Report": "grader.judge.report",
    "Sandbox": "grader.run.sandbox",
    "Exercise": "grader.core.exercise",
    "load_exercise": "grader.judge.spec",
    "check": "grader.course.notebook_check",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'grader' has no attribute {name!r}")
