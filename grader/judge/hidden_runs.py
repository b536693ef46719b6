"""Hidden checks run apart: after the public ones, out of reach of their result, and only their verdicts come back.

A hidden check's code runs in the student's process, which can print what it is given, quote it in an
exception, or spy on `exec`, `eval` and frames. Run with the public checks, what it saw could reach the
report through the public run's output, a visible check's text or diagnosis. So the hidden checks are
given to the submission only once everything the public run's result is read from has been taken:

- where every public check comes before the hidden ones (most exercises), in the same child, once it has
  said all of its public checks and its output so far has been read (grader.run.sandbox.Sandbox.launch_then):
  nothing it does from then on reaches the public result, and its output from then on is dropped. The
  hidden checks meet the state the public ones left, as in one run.
- otherwise in a second child, after the public checks replayed there (what a submission keeps between
  calls meets the hidden checks as it would in one run; those records are not read).

Of the hidden part the report keeps only each hidden check's status and points (its problem is a fixed
sentence, grader.judge.check): no output, no load error, no note or refused import, no exception text, and
of its integrity records only that there were some.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence

from grader.core.exercise import Device, Exercise, Visibility
from grader.run.observed import GroupRun, RunResult
from grader.run.read.load import Submission
from grader.run.sandbox import Group, PendingPair, Sandbox, distinct_children, probes_to_run

#: what integrity says of anything refused while hidden checks ran (the refusals' own words name places
#: and modules the submission chose)
HIDDEN_INTEGRITY = ("your code did something the grader refuses while its hidden checks ran; it was refused, "
                    "and what it was is withheld with the hidden checks")


def has_hidden(groups: Sequence[Group], device: Device) -> bool:
    return any(p.visibility == "hidden" and device in p.devices for g in groups for p in g.exercise.probes)


def public_visibility(groups: Sequence[Group], device: Device) -> Visibility | None:
    """What the first run of a device asks for: the public checks alone where there are hidden ones."""
    return "public" if has_hidden(groups, device) else None


def run_hidden(sandbox: Sandbox, submission: Submission, groups: Sequence[Group], device: Device,
               time_limit: float | None, public: Sequence[tuple[RunResult, int]],
               ) -> tuple[list[GroupRun | None], list[RunResult]]:
    """The hidden checks of each group, from a run of their own; None for a group with none, or where the
    public run never loaded the submission or stopped in the group's checks (a hidden run would only fail
    the same way). Nothing of the grader's own runs beside them: whatever it read could carry what the
    submission saw there into the visible report."""
    wanted = [i for i, g in enumerate(groups) if has_hidden([g], device) and _loaded(*public[i])]
    found: list[GroupRun | None] = [None] * len(groups)
    if not wanted:
        return found, []
    results = sandbox.start(submission, [groups[i] for i in wanted], device=device, time_limit=time_limit,
                            visibility="hidden").results()
    for i, (run, k) in zip(wanted, results, strict=True):
        found[i] = run.groups[k]
    return found, distinct_children(results)


def hidden_last(exercise: Exercise, device: Device) -> bool:
    """Whether every public check on `device` comes before the first hidden one: a run of the public checks and
    then the hidden ones gives each the state it meets in one run of all."""
    on = probes_to_run(exercise, device)
    hidden = [i for i in on if exercise.probes[i].visibility == "hidden"]
    return all(i < min(hidden, default=len(exercise.probes)) for i in on if exercise.probes[i].visibility == "public")


def runs_together(groups: Sequence[Group], device: Device) -> bool:
    """Whether a submission's hidden checks follow its public ones in the same child (one exercise, hidden checks
    last); else they run in a child of their own (run_hidden)."""
    return len(groups) == 1 and has_hidden(groups, device) and hidden_last(groups[0].exercise, device)


class Together:
    """The public checks of one group, and then its hidden checks in the same child (Sandbox.launch_then), where
    the public run loaded the submission and went through them."""

    def __init__(self, sandbox: Sandbox, submission: Submission, groups: Sequence[Group], device: Device,
                 time_limit: float | None) -> None:
        self._size = len(groups)
        self._pair: PendingPair = sandbox.launch_then(
            submission, groups, device=device, time_limit=time_limit,
            then=lambda public: [i for i in range(len(groups)) if _loaded(public, i)])
        self._found: tuple[RunResult, RunResult | None, list[int]] | None = None

    def _results(self) -> tuple[RunResult, RunResult | None, list[int]]:
        if self._found is None:
            self._found = self._pair.results()
        return self._found

    def results(self) -> list[tuple[RunResult, int]]:
        """The public run, for each group, as RunSet.results() gives it."""
        public, _, _ = self._results()
        return [(public, i) for i in range(self._size)]

    def hidden(self) -> tuple[list[GroupRun | None], list[RunResult]]:
        """As run_hidden gives it: each group's hidden records (None where none ran), and the hidden part."""
        _, hidden, wanted = self._results()
        found: list[GroupRun | None] = [None] * self._size
        if hidden is None:
            return found, []
        for k, i in enumerate(wanted):
            found[i] = hidden.groups[k]
        return found, [hidden]


def part_of(group: Group, visibility: Visibility) -> Group:
    """The group with only the checks a `visibility` run makes on the CPU (grader.run.sandbox.probes_to_run):
    the others stay in their places, for no device (a known mistake's run mirrors the student's this way,
    its localization beside it)."""
    runs = probes_to_run(group.exercise, "cpu", visibility)
    probes = tuple(p if i in runs else dataclasses.replace(p, devices=())
                   for i, p in enumerate(group.exercise.probes))
    return Group(dataclasses.replace(group.exercise, probes=probes), group.inputs, group.seed)


def _loaded(run: RunResult, index: int) -> bool:
    """Whether the public run loaded the submission and went through the group's checks: where it stopped (a
    crash, an exit, a time limit), a hidden run would replay the same checks into the same stop, and in one
    run the checks after it would not have run either."""
    return run.load_error is None and (run.loaded or run.kind == "notebook") and run.stop is None \
        and run.groups[index].stop is None


def merge(exercise: Exercise, public: GroupRun, hidden: GroupRun | None) -> GroupRun:
    """One exercise's part of both runs: each hidden probe's record from the hidden run, the rest (what the
    submission lacks, where the run stopped) from the public one."""
    if hidden is None:
        return public
    chosen = [h if probe.visibility == "hidden" else p
              for probe, p, h in zip(exercise.probes, public.probes, hidden.probes, strict=True)]
    needs = tuple(h if probe.visibility == "hidden" else p for probe, p, h in
                  zip(exercise.probes, _padded(public.needs, len(chosen)), _padded(hidden.needs, len(chosen)),
                      strict=True))
    return dataclasses.replace(public, probes=tuple(chosen), needs=needs)


def _padded(needs: tuple[tuple[str, ...], ...], size: int) -> tuple[tuple[str, ...], ...]:
    return needs + ((),) * (size - len(needs))


def hidden_integrity(public: Iterable[RunResult], hidden: Iterable[RunResult], *, also: bool = False) -> list[str]:
    """One withheld line where the hidden run refused something the public run did not (a forged reply too), or
    where `also` (the record of autograd saw something there alone). It is the only line of a report's integrity
    that comes from the hidden run: what a course server withholds with the hidden checks until the deadline."""
    seen = {text for run in public for text in run.integrity}
    hidden = list(hidden)
    forged = any(stop is not None and stop.kind == "forged-reply"
                 for run in hidden for stop in (run.stop, *(g.stop for g in run.groups)))
    refused = any(text not in seen for run in hidden for text in run.integrity)
    return [HIDDEN_INTEGRITY] if forged or refused or also else []
