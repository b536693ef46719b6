"""The messages between a batch's coordinator and its workers (grader.course.pool), one JSON line
each: a Task to a worker, a Done back."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import get_args

from grader.outputs.students import Outcome


@dataclass(frozen=True, slots=True, kw_only=True)
class Task:
    """The coordinator to a worker: grade this student."""

    student: str

    def to_line(self) -> bytes:
        return json.dumps({"student": self.student}).encode() + b"\n"

    @classmethod
    def from_line(cls, line: bytes) -> Task:
        return cls(student=str(json.loads(line)["student"]))


@dataclass(frozen=True, slots=True, kw_only=True)
class Done:
    """A worker to the coordinator: a student is graded and their files are written; the few
    numbers kept."""

    student: str
    outcome: Outcome
    score: float
    max_score: float
    seconds: float
    #: for grader errors: the traceback, for the instructor
    error: str = ""

    def to_line(self) -> bytes:
        return json.dumps(asdict(self)).encode() + b"\n"

    @classmethod
    def from_line(cls, line: bytes) -> Done:
        data = json.loads(line)
        if data["outcome"] not in get_args(Outcome):
            raise ValueError(f"a worker sent an unknown outcome {data['outcome']!r}")
        return cls(
            student=str(data["student"]),
            outcome=data["outcome"],
            score=float(data["score"]),
            max_score=float(data["max_score"]),
            seconds=float(data["seconds"]),
            error=str(data["error"]),
        )
