"""What a known mistake's file says whatever the seed, read once per process: the seed of each submission's own
changes what a mutant gives on its checks (grader.judge.mistake_runs), not these."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from grader.core.errors import GraderError
from grader.core.exercise import Exercise, Mutant
from grader.judge.diagnose.faults import faults
from grader.judge.diagnose.localize import localize
from grader.judge.diagnose.weak_evidence import distinctive
from grader.judge.library.repositories import submission_of
from grader.judge.names import definitions
from grader.judge.rules import check_source
from grader.run.read.load import Submission
from grader.run.sandbox import Sandbox


@dataclass(frozen=True, slots=True)
class MutantFacts:
    """What a mutant is whatever the seed: its file read, the source rules it breaks, what its code does that the
    solution's does not, and for an engine mistake what localization finds wrong in it
    (grader.judge.diagnose.faults), as (method, how). Found once, not for every student with a seed of their own:
    every mutant of this course's engine exercises localizes to the same faults at every seed
    (tests/test_mutant_runs.py)."""

    submission: Submission
    rules: frozenset[str]
    distinctive: frozenset[str]
    faults: frozenset[tuple[str, str]]
    #: its localization ran out of time twice (grader.judge.diagnose.localize): `faults` is no evidence, and these
    #: facts are not kept, so that the next diagnosis asks again
    unfinished: bool = False


#: a mutant's facts by its exercise, its file and the solution's, as they were when read (an edit reads them again)
_FACTS: dict[tuple[object, ...], MutantFacts | None] = {}
#: the seed a mutant is localized at
LOCALIZED_AT = 0


def mutant_facts(sandbox: Sandbox, mutant: Mutant, exercise: Exercise,
                  time_limit: float | None) -> MutantFacts | None:
    """The mutant's facts; None where its file cannot be read."""
    key = (exercise.id, exercise.source, stamp(mutant.path), stamp(exercise.solution))
    if key not in _FACTS:
        try:
            submission = submission_of(exercise, mutant.path)
        except GraderError:
            facts = None
        else:
            # an engine mistake's own localization: blame keeps its name only where it agrees
            located = localize(sandbox, submission, exercise, LOCALIZED_AT, time_limit)
            defined = definitions(submission.cells)
            found = frozenset((f.rule.method, f.rule.how)
                              for f in faults(located, defined.grad_overwrites, defined.stepped)) \
                if located is not None else frozenset()
            facts = MutantFacts(submission, frozenset(v.rule for v in check_source(submission.cells, exercise.source)),
                                 distinctive(mutant.path, exercise.solution), found,
                                 located is not None and located.unfinished)
            if facts.unfinished:
                return facts
        if len(_FACTS) >= 512:
            _FACTS.clear()
        _FACTS[key] = facts
    return _FACTS[key]


def stamp(path: Path | None) -> tuple[object, ...]:
    try:
        info = os.stat(path) if path is not None else None
    except OSError:
        return (str(path),)
    return (str(path),) if info is None else (str(path), info.st_mtime_ns, info.st_size, info.st_ino)
