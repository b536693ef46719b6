"""autograd-grader: grade autograd exercises safely, with feedback that names the mistake."""

from __future__ import annotations

import sys
import types
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
    from grader.exercise import Exercise
    from grader.grading import grade
    from grader.notebook_check import check
    from grader.report import Report
    from grader.sandbox import Sandbox

    # Imported on first use: `grade --help` and `grade list` should not pay for importing torch.
    from grader.spec import load_exercise

# Imported on first use: `grade --help` and `grade list` should not pay for importing torch.
_LAZY = {
    "Catalog": "grader.catalog",
    "ExitCode": "grader.errors",
    "GraderError": "grader.errors",
    "grade": "grader.grading",
    "Report": "grader.report",
    "Sandbox": "grader.sandbox",
    "Exercise": "grader.exercise",
    "load_exercise": "grader.spec",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'grader' has no attribute {name!r}")


class _Package(types.ModuleType):
    """`grader.check` is the notebook's check() (grader.notebook_check), also once the submodule grader/check.py
    is imported: importing a submodule sets the package's attribute of its name, and this property takes
    that assignment without letting it hide the function. `from grader.check import ...` is unchanged."""

    @property
    def check(self) -> Any:
        from grader.notebook_check import check

        return check

    @check.setter
    def check(self, module: Any) -> None:
        pass  # the submodule stays in sys.modules["grader.check"], where its own imports find it


sys.modules[__name__].__class__ = _Package
