"""Hidden checks run as a part of their own: after the public part,
out of reach of its result, and only their verdicts come back.

A hidden check's code runs in the student's process, which can print what it is
given, quote it in an exception, or spy on `exec`, `eval` and frames. Run with the
public checks, what it saw could reach the report through the public part's output, a
visible check's text or diagnosis. So the hidden checks are given to the submission
only once everything the public part's result is read from has been taken:

- where every public check comes before the hidden ones (most exercises), in a two-part
  run: the same child goes on to the hidden part once it has said all of its public part
  and its output so far has been read (grader.run.sandbox.Sandbox.launch_two_parts).
  Nothing it does from then on reaches the public result, and its output from then on is
  dropped. The hidden checks meet the state the public ones left, as in one run.
- otherwise the hidden part runs in a child of its own, after the public
  checks replayed there (what a submission keeps between calls meets the
  hidden checks as it would in one run; those records are not read).

Of the hidden part the report keeps only each hidden check's status and points (its
problem is a fixed sentence, grader.judge.check): no output, no load error, no note or
refused import, no exception text, and of its integrity records only that there were some.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence

from grader.core.exercise import Device, Exercise, Visibility
from grader.run.observed import GroupRun, RunResult
from grader.run.read.load import Submission
from grader.run.sandbox import Group, Sandbox, distinct_children, probes_to_run

#: what integrity says of anything refused while hidden checks ran (the
#: refusals' own words name places and modules the submission chose)
HIDDEN_INTEGRITY = (
    "your code did something the grader refuses while its hidden checks ran; it was refused, "
    "and what it was is withheld with the hidden checks"
)


def has_hidden_part(groups: Sequence[Group], device: Device) -> bool:
    """Whether any group has a hidden check on `device`."""
    for group in groups:
        if any(p.visibility == "hidden" and device in p.devices for p in group.exercise.probes):
            return True
    return False


def public_part(groups: Sequence[Group], device: Device) -> Visibility | None:
    """What a device's first run asks for: its public part where there
    are hidden checks (a hidden part follows), else every check."""
    return "public" if has_hidden_part(groups, device) else None


def run_hidden_part(
    sandbox: Sandbox,
    submission: Submission,
    groups: Sequence[Group],
    device: Device,
    time_limit: float | None,
    public: Sequence[tuple[RunResult, int]],
) -> tuple[list[GroupRun | None], list[RunResult]]:
    """The hidden part in a child of its own: each group's records, None for a group with none,
    or where the public part never loaded the submission or stopped in the group's checks (a
    hidden part would only fail the same way). Nothing of the grader's own runs beside them:
    whatever it read could carry what the submission saw there into the visible report."""
    wanted = [
        i for i, g in enumerate(groups) if has_hidden_part([g], device) and _loaded(*public[i])
    ]
    found: list[GroupRun | None] = [None] * len(groups)
    if not wanted:
        return found, []
    results = sandbox.start(
        submission,
        [groups[i] for i in wanted],
        device=device,
        time_limit=time_limit,
        visibility="hidden",
    ).results()
    for i, (run, k) in zip(wanted, results, strict=True):
        found[i] = run.groups[k]
    return found, distinct_children(results)


def public_part_first(exercise: Exercise, device: Device) -> bool:
    """Whether every public check on `device` comes before the first hidden one: a public
    part and then a hidden part give each check the state it meets in one run of all."""
    on = probes_to_run(exercise, device)
    hidden = [i for i in on if exercise.probes[i].visibility == "hidden"]
    return all(
        i < min(hidden, default=len(exercise.probes))
        for i in on
        if exercise.probes[i].visibility == "public"
    )


def in_two_parts(groups: Sequence[Group], device: Device) -> bool:
    """Whether a submission's hidden part follows its public part in the same child, a two-part
    run (one exercise, hidden checks last); else it runs in a child of its own (run_hidden_part)."""
    return (
        len(groups) == 1
        and has_hidden_part(groups, device)
        and public_part_first(groups[0].exercise, device)
    )


def loaded_groups(public: RunResult) -> list[int]:
    """The groups a two-part run's hidden part holds (Sandbox.launch_two_parts' `hidden_groups`):
    those whose public part loaded the submission and went through their checks."""
    return [i for i in range(len(public.groups)) if _loaded(public, i)]


def group_part(group: Group, visibility: Visibility) -> Group:
    """The group's public or hidden part: only the checks a `visibility` run makes on the
    CPU (grader.run.sandbox.probes_to_run); the others stay in their places, for no device
    (a known mistake's run mirrors the student's this way, its localization beside it)."""
    runs = probes_to_run(group.exercise, "cpu", visibility)
    probes = tuple(
        p if i in runs else dataclasses.replace(p, devices=())
        for i, p in enumerate(group.exercise.probes)
    )
    return Group(dataclasses.replace(group.exercise, probes=probes), group.inputs, group.seed)


def _loaded(run: RunResult, index: int) -> bool:
    """Whether the public part loaded the submission and went through the group's checks:
    where it stopped (a crash, an exit, a time limit), a hidden part would replay the same
    checks into the same stop, and in one run the checks after it would not have run either."""
    return (
        run.load_error is None
        and (run.loaded or run.kind == "notebook")
        and run.stop is None
        and run.groups[index].stop is None
    )


def join_parts(exercise: Exercise, public: GroupRun, hidden: GroupRun | None) -> GroupRun:
    """One exercise's records of both parts: each hidden probe's record from the hidden
    part, the rest (what the submission lacks, where the run stopped) from the public one."""
    if hidden is None:
        return public
    chosen = [
        h if probe.visibility == "hidden" else p
        for probe, p, h in zip(exercise.probes, public.probes, hidden.probes, strict=True)
    ]
    needs = tuple(
        h if probe.visibility == "hidden" else p
        for probe, p, h in zip(
            exercise.probes,
            _padded(public.needs, len(chosen)),
            _padded(hidden.needs, len(chosen)),
            strict=True,
        )
    )
    return dataclasses.replace(public, probes=tuple(chosen), needs=needs)


def _padded(needs: tuple[tuple[str, ...], ...], size: int) -> tuple[tuple[str, ...], ...]:
    return needs + ((),) * (size - len(needs))


def hidden_integrity(
    public: Iterable[RunResult], hidden: Iterable[RunResult], *, also: bool = False
) -> list[str]:
    """One withheld line where the hidden run refused something the public run did not
    (a forged reply too), or where `also` (the record of autograd saw something there
    alone). It is the only line of a report's integrity that comes from the hidden
    run: what a course server withholds with the hidden checks until the deadline."""
    seen: set[str] = set()
    for run in public:
        seen.update(run.integrity)
    withheld = also
    for run in hidden:
        stops = (run.stop, *(g.stop for g in run.groups))
        forged = any(stop is not None and stop.kind == "forged-reply" for stop in stops)
        refused = any(text not in seen for text in run.integrity)
        withheld = withheld or forged or refused
    return [HIDDEN_INTEGRITY] if withheld else []
