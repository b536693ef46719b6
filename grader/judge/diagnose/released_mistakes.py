"""The known mistakes as a released pack carries them: what naming needs, never the mutants' code.

A pack ships no mutants (their code is one line from the solution), so a student grading with it
would read "fits no known mistake" where the instructor's grade names one. `grade release` stores,
for the pack's seed, each mistake's id, hint, the source rules it breaks, what localization finds
wrong in it, what its code does that the solution's does not (matching.distinctive), and what it
gave on each public probe: numbers, or an exception's type and message without its line, which
would quote the mutant's code. Read back, they are the same `MutantRun`s the instructor's grade
builds, so both name the same mistakes with the same words on the public checks.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from grader.core.exercise import Exercise, Mutant
from grader.core.values import ErrorInfo, error_from_data, error_to_data, from_data, to_data
from grader.judge.diagnose.evidence import MutantRun
from grader.run.observed import Evidence, GroupRun, ProbeRun

FILE_NAME = "mistakes.json"
_MAX_BYTES = 8 * 1024 * 1024


def mistakes_to_data(
    exercise: Exercise, runs: Sequence[MutantRun], public: set[str], seed: int
) -> dict[str, Any]:
    """What the pack stores of each known mistake, on the public probes at `seed`."""
    return {
        "seed": seed,
        "mistakes": [
            {
                "mistake": m.mutant.mistake,
                "hint": m.mutant.hint,
                "rules": sorted(m.rules),
                "faults": sorted([method, how] for method, how in m.faults),
                "distinctive": sorted(m.distinctive or ()),
                "probes": None
                if m.run is None
                else {
                    probe.name: _probe_to_data(got)
                    for probe, got in zip(exercise.probes, m.run.probes, strict=True)
                    if probe.name in public
                },
            }
            for m in runs
        ],
    }


def _probe_to_data(got: ProbeRun | None) -> dict[str, Any] | None:
    if got is None:
        return None
    found: dict[str, Any] = (
        {"error": error_to_data(ErrorInfo(got.error.type_name, got.error.message))}
        if got.error is not None
        else {"observations": {k: to_data(v) for k, v in (got.observations or {}).items()}}
    )
    if got.evidence is not None:
        e = got.evidence
        found["evidence"] = {
            "runs": e.runs,
            "not_from_engine": list(e.not_from_engine),
            "forbidden_ops": list(e.forbidden_ops),
            "produced": list(e.produced),
        }
    return found


def write(path: Path, data: dict[str, Any]) -> Path:
    path.write_text(
        json.dumps(data, sort_keys=True, separators=(",", ":")) + "\n", encoding="utf-8"
    )
    return path


def stored_seed(exercise: Exercise) -> int | None:
    """The seed a pack's known mistakes were stored
    for; None where the exercise has no such file."""
    data = _read(exercise)
    return None if data is None else data["seed"]


def released_runs(exercise: Exercise, seed: int) -> tuple[MutantRun, ...]:
    """The pack's known mistakes as runs on this exercise's
    probes; none for another seed, or without the file."""
    data = _read(exercise)
    if data is None or data["seed"] != seed:
        return ()
    try:
        return _runs(exercise, data)
    except (ValueError, KeyError, TypeError, AttributeError):
        return ()  # a damaged file costs the names, never the grade


def _runs(exercise: Exercise, data: dict[str, Any]) -> tuple[MutantRun, ...]:
    runs = []
    for entry in data["mistakes"]:
        probes = entry["probes"]
        run = (
            None
            if probes is None
            else GroupRun(
                missing=(),
                stopped_at=None,
                probes=tuple(_probe_from_data(probes.get(p.name)) for p in exercise.probes),
            )
        )
        mutant = Mutant(
            path=exercise.folder / FILE_NAME,
            mistake=_text(entry["mistake"]),
            hint=_text(entry["hint"]),
        )
        runs.append(
            MutantRun(
                mutant,
                run,
                frozenset(map(_text, entry["rules"])),
                frozenset((_text(m), _text(h)) for m, h in entry["faults"]),
                frozenset(map(_text, entry["distinctive"])),
            )
        )
    return tuple(runs)


def _read(exercise: Exercise) -> dict[str, Any] | None:
    """The stored mistakes of a pack's exercise (no
    mutants, no solution: a course's own are run instead)."""
    path = exercise.folder / FILE_NAME
    if (
        exercise.mutants
        or exercise.solution is not None
        or not path.is_file()
        or path.stat().st_size > _MAX_BYTES
    ):
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if (
        type(data) is not dict
        or type(data.get("seed")) is not int
        or type(data.get("mistakes")) is not list
    ):
        return None
    return data


def _probe_from_data(entry: object) -> ProbeRun | None:
    if entry is None:
        return None
    if type(entry) is not dict:
        raise ValueError("a stored probe run is not a mapping")
    evidence = None
    if "evidence" in entry:
        e = entry["evidence"]
        evidence = Evidence(
            int(e["runs"]),
            tuple(map(_text, e["not_from_engine"])),
            tuple(map(_text, e["forbidden_ops"])),
            tuple(float(v) for v in e["produced"]),
        )
    if "error" in entry:
        return ProbeRun(None, error_from_data(entry["error"]), evidence)
    observations = entry["observations"]
    return ProbeRun({_text(k): from_data(v) for k, v in observations.items()}, None, evidence)


def _text(value: object) -> str:
    if type(value) is not str:
        raise ValueError("a stored text is not a string")
    return value
