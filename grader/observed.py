"""What a sandboxed run saw, as plain records: the hand-off from the sandbox to checks and diagnosis."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from grader.values import ErrorInfo, Value


@dataclass(frozen=True, slots=True)
class ProbeRun:
    """What one probe did in the child: its observations, or the error that stopped it."""

    observations: Mapping[str, Value] | None
    error: ErrorInfo | None


@dataclass(frozen=True, slots=True, kw_only=True)
class GroupRun:
    """One exercise's part of a run."""

    #: names the exercise needs that the submission lacks, in words
    missing: tuple[str, ...]
    #: by the exercise's probe index; None where the probe did not finish or was not meant for this device
    probes: tuple[ProbeRun | None, ...]
    #: the probe that was running when the run stopped
    stopped_at: int | None


@dataclass(frozen=True, slots=True, kw_only=True)
class RunResult:
    """What one child did with the submission: its cells, then each exercise's probes."""

    kind: Literal["python", "notebook"]
    #: every cell ran (a .py file), or every cell was tried (a notebook goes on past failing cells)
    loaded: bool
    #: exceptions raised by the cells; each error's `where.file` names the cell
    cell_errors: tuple[ErrorInfo, ...]
    #: why the child stopped before finishing, in words; None if it finished
    stopped: str | None
    #: what the student might do about it
    advice: str
    #: the cell that was running when it stopped (None if it stopped in a probe, or finished)
    stopped_in_cell: str | None
    groups: tuple[GroupRun, ...]
    output: str
    output_truncated: bool
    seconds: float

    @property
    def load_error(self) -> ErrorInfo | None:
        """The error that kept a .py file from loading; a notebook's failing cells are not fatal."""
        return self.cell_errors[0] if self.kind == "python" and self.cell_errors else None
