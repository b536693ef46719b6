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
    from grader.catalog import Catalog
    from grader.errors import ExitCode, GraderError
    from grader.grading import grade
    from grader.notebook_check import check
    from grader.report import Report
    from grader.sandbox import Sandbox
    from grader.spec import Exercise, load_exercise

# Imported on first use: `grade --help` and `grade list` should not pay for importing torch.
_LAZY = {
    "Catalog": "grader.catalog",
    "ExitCode": "grader.errors",
    "GraderError": "grader.errors",
    "grade": "grader.grading",
    "check": "grader.notebook_check",
    "Report": "grader.report",
    "Sandbox": "grader.sandbox",
    "Exercise": "grader.spec",
    "load_exercise": "grader.spec",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'grader' has no attribute {name!r}")
