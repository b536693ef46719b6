"""A one-worker batch's torch expected values, computed
ahead in a process of their own that ends once it is done.

A torch exercise's expected values come from its solution, run on the trusted side, and
whatever runs it imports torch: 140 MB of it private to each process. With more workers the
coordinator imports torch once and every worker forked from it shares it. With one (`-j 1`)
nothing shares it: the worker would hold torch beside its torch zygote's for the whole
batch, for these values alone. So they are computed first, for every submission's seed, by
a child of the coordinator that imports torch and leaves; the worker forked after it starts
with them, never imports torch, and the batch's peak memory is the larger of the two, not
their sum. Whatever the child could not give (it failed, or a value does not read back
exactly, a NaN) the worker computes as before: this saves memory, never changes a value.
"""

from __future__ import annotations

import json
import os
import traceback
from collections.abc import Iterable, Mapping, Sequence

from grader.core.exercise import Exercise
from grader.course.classlist import Entry
from grader.course.manifest import Setup
from grader.course.selection import digest_content
from grader.judge.grading import ExpectedCache
from grader.judge.oracle import Expected, expected_from_data, expected_to_data, expected_values
from grader.run.inputs import draw_inputs


def needs_torch(exercise: Exercise) -> bool:
    """Its expected values come from its solution,
    which imports torch here (a pack's are stored)."""
    return exercise.uses_torch and exercise.expected is None


def wanted(
    entries: Iterable[Entry],
    exercises: Mapping[str, Sequence[Exercise]],
    setup: Setup,
) -> list[tuple[Exercise, int]]:
    """Each torch exercise a submission is graded on, at that submission's seed, once."""
    found: dict[tuple[str, int], Exercise] = {}
    for entry in entries:
        todo = [e for e in exercises.get(entry.student.id, ()) if needs_torch(e)]
        if entry.missing or not todo:
            continue
        seed, _ = setup.seed_of(digest_content(entry.files))
        for exercise in todo:
            found.setdefault((exercise.id, seed), exercise)
    return [(exercise, seed) for (_, seed), exercise in found.items()]


def compute_ahead(pairs: Sequence[tuple[Exercise, int]]) -> ExpectedCache:
    """The expected values of each (exercise, seed), from
    a child process that holds torch only while it works."""
    if not pairs:
        return {}
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child that imports torch
        code = 0
        try:
            os.close(read)
            with os.fdopen(write, "w", encoding="utf-8") as out:
                for exercise, seed in pairs:
                    values = expected_values(
                        exercise, draw_inputs(exercise, seed), seed=seed, torch_engine=False
                    )
                    if all(_back(_stored(v)) == v for v in values):
                        out.write(
                            json.dumps(
                                {
                                    "exercise": exercise.id,
                                    "seed": seed,
                                    "values": [_stored(v) for v in values],
                                }
                            )
                            + "\n"
                        )
        except BaseException:  # noqa: BLE001 - say why; the worker computes what is missing
            traceback.print_exc()
            code = 70
        os._exit(code)
    os.close(write)
    by_id = {exercise.id: exercise for exercise, _ in pairs}
    found: ExpectedCache = {}
    with os.fdopen(read, encoding="utf-8") as lines:
        for line in lines:
            try:
                entry = json.loads(line)
                exercise = by_id[entry["exercise"]]
                values = tuple(_back(v) for v in entry["values"])
                if len(values) == len(exercise.probes) and type(entry["seed"]) is int:
                    found[(exercise.id, entry["seed"])] = values
            except (ValueError, KeyError, TypeError):
                continue
    os.waitpid(pid, 0)
    return found


def _stored(value: Expected) -> dict[str, object]:
    return {**expected_to_data(value), "disagreements": list(value.disagreements)}


def _back(data: object) -> Expected:
    if type(data) is not dict or type(data.get("disagreements")) is not list:
        raise ValueError("not stored expected values")
    rest = {key: item for key, item in data.items() if key != "disagreements"}
    return expected_from_data(rest, tuple(str(d) for d in data["disagreements"]))
