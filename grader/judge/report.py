"""The report: what every output format is made from, and the exit code it implies."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from grader import __version__
from grader.core.errors import ExitCode
from grader.run.observed import Isolation

if TYPE_CHECKING:
    from grader.core.exercise import Exercise

Status = Literal["passed", "failed", "error", "skipped"]
REPORT_VERSION = "1.9"


@dataclass(frozen=True, slots=True, kw_only=True)
class ObservationResult:
    """One compared quantity of a check, formatted for people."""

    label: str
    expected: str
    got: str
    ok: bool
    problem: str = ""
    #: both sides as plain JSON at full precision (grader.judge.plain);
    #: `expected` and `got` are them rounded for people
    expected_value: Any = None
    got_value: Any = None


#: how one rule of an engine is wrong (grader.judge.diagnose.localize):
#: a local slope, backward()'s walk, or a missing method
How = Literal[
    "swapped",
    "negated",
    "missing-upstream",
    "from-output",
    "wrong-local",
    "traversal-order",
    "visited",
    "seeding",
    "accumulation",
    "missing",
    "no-backward",
    "wrong-value",
    "missing-coefficient",
]


#: whose slope: the node the method is called on (self), the other operand, both; "" for
#: backward and missing
Operand = Literal["self", "other", "both", ""]


@dataclass(frozen=True, slots=True, kw_only=True)
class RuleFault:
    """The rule a diagnosis blames: an operation's method
    (or backward), the operand whose slope is wrong, how."""

    #: the method, as the class defines it: "__mul__", "sigmoid", "backward"
    method: str
    operand: Operand
    how: How


CauseKind = Literal[
    "passed",
    "wrong-value",
    "precision",
    "exception",
    "not-attempted",
    "timeout",
    "cpu-time",
    "memory",
    "signal",
    "exit",
    "output-limit",
    "reply",
    "rule",
    "missing-name",
    "unreadable",
    "no-submission",
    "skipped",
    "grader",
]


@dataclass(frozen=True, slots=True)
class Cause:
    """Why a check scored what it did, for programs to read: formats, the class summary, an LMS.

    `kind`: passed or wrong-value (it ran to the end); precision (it ran to the end, and
    every wrong value is within what float32 arithmetic gives there, grader.judge.precision:
    `detail` is "D A", the largest relative difference and the relative tolerance the check
    allowed); exception (the student's code raised `detail`, at `line` of the submission
    where known); not-attempted (a starter's stub raised NotImplementedError); timeout,
    cpu-time, memory, signal, exit, output-limit and reply (the run was stopped, or its
    reply broke the protocol); rule (a source or autograd rule is broken); missing-name
    (`detail` names what the submission does not define); unreadable and no-submission
    (nothing could be graded); skipped (not asked for here, such as CUDA on a machine
    without one); grader (the grader failed: never the student's fault)."""

    kind: CauseKind
    detail: str = ""
    line: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Diagnosis:
    """The likely mistake behind a failed check, and how sure the grader is of it."""

    #: known-mistake: behaves exactly like one of the exercise's mutants; localized:
    #: each operation run alone, and small compositions, put the fault in one rule
    #: (grader.judge.diagnose.localize); pattern: the numbers fit a known shape of
    #: error (half, negated...) or the error names it; unknown: nothing known matches
    kind: Literal["known-mistake", "localized", "pattern", "unknown"]
    #: the mutant's mistake id, or the pattern's id; empty when unknown
    mistake: str
    #: what the student reads
    hint: str
    #: why the grader thinks so
    evidence: str
    #: the rule at fault, where one is known
    rule: RuleFault | None = None


@dataclass(frozen=True, slots=True)
class Trace:
    """Where a failed integration check of a library
    course went wrong (grader.judge.library.trace)."""

    #: the op it is traced to; with how == "own-check", every op it used whose own checks failed
    ops: tuple[str, ...]
    #: "value": the first wrong value came from the op; "own-check": the ops' own checks failed
    how: Literal["value", "own-check"]
    #: the ops' own failed checks, as "exercise: check"
    checks: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class CheckResult:
    name: str
    about: str
    status: Status
    score: float
    max_score: float
    #: what went wrong, in a sentence or two; empty when the check passed
    problem: str
    visibility: Literal["public", "hidden"]
    #: the probe's inputs as (name, shown value); empty for hidden checks and checks that never ran
    inputs: tuple[tuple[str, str], ...] = ()
    #: the same inputs as plain JSON at full precision (grader.judge.plain); withheld as `inputs` is
    input_values: tuple[tuple[str, Any], ...] = ()
    code: str = ""
    observations: tuple[ObservationResult, ...] = ()
    #: for failed checks: the likely mistake (withheld for hidden checks' details, not their name)
    diagnosis: Diagnosis | None = None
    #: why it scored what it did, as data (the problem says it in words)
    cause: Cause = Cause("passed")
    #: a public check's diagnosis on the public checks' evidence alone, where it differs from
    #: `diagnosis` (which weighs the hidden checks' verdicts too): what its student sees before
    #: the deadline (the same passes on the evidence visible to them make it,
    #: grader.judge.diagnose.passes; grader.judge.audience shows it); None where the two are
    #: the same
    public_diagnosis: Diagnosis | None = None
    #: a failed integration check of a library course: the op it is traced to, where one is found
    traced: Trace | None = None

    @property
    def message(self) -> str:
        """The problem, what was run and the likely mistake, in one
        paragraph: for readers that see nothing else (LMS, CI)."""
        text = self.problem
        if self.problem and self.code:
            code = "; ".join(
                line.strip() for line in self.code.strip().splitlines() if line.strip()
            )
            inputs = ", ".join(f"{name} = {value}" for name, value in self.inputs)
            text += f" Ran `{code}`" + (f" with {inputs}." if inputs else ".")
        if self.diagnosis is not None and self.diagnosis.kind != "unknown":
            text += f" Likely mistake ({self.diagnosis.mistake}): {self.diagnosis.hint}"
        return text


@dataclass(frozen=True, slots=True, kw_only=True)
class ExerciseResult:
    id: str
    title: str
    checks: tuple[CheckResult, ...]
    #: problems for this exercise: names it needs are
    #: missing, a rule is broken, a check stopped the run
    problems: tuple[str, ...] = ()
    #: points in hidden checks this report does not include (a released pack
    #: leaves them out; they are graded after the student submits): the score
    #: a student sees is out of max_score, not of the exercise's points
    hidden_points: float = 0.0
    #: mistakes another one hides from every check (a missing seed zeroes every
    #: gradient), each found on its own localization probe with that one mended
    #: there (grader.judge.diagnose.faults): the student's next failures
    masked: tuple[Diagnosis, ...] = ()
    #: `masked` found on the public checks' evidence alone, where it differs: what a student sees
    #: before the deadline (made as `public_diagnosis` is, shown by grader.judge.audience); None
    #: where the two are the same
    public_masked: tuple[Diagnosis, ...] | None = None

    @property
    def score(self) -> float:
        return round(sum(c.score for c in self.checks), 6)

    @property
    def max_score(self) -> float:
        return round(sum(c.max_score for c in self.checks if c.status != "skipped"), 6)

    @property
    def public_score(self) -> float:
        """The points scored on the public checks alone."""
        return round(sum(c.score for c in self.checks if c.visibility == "public"), 6)


@dataclass(frozen=True, slots=True, kw_only=True)
class Report:
    submission: str
    sha256: str
    #: the seed of its inputs; None where it was drawn
    #: from a course secret, which `seed_token` stands for
    seed: int | None
    exercises: tuple[ExerciseResult, ...]
    grader_version: str
    seconds: float = 0.0
    #: problems with the submission as a whole: it did
    #: not load, a cell raised, it stopped while loading
    problems: tuple[str, ...] = ()
    #: facts about how it was read: magics that did not run, cells tagged skip-grading
    notes: tuple[str, ...] = ()
    #: what the submission printed (capped)
    output: str = ""
    output_truncated: bool = False
    #: how its runs were confined (the weakest of them); None where nothing ran
    isolation: Isolation | None = None
    #: what its code did against the grader itself: tampering the guard refused, replies it forged
    integrity: tuple[str, ...] = ()
    #: where the seed was drawn from the submission and a course secret: what the instructor turns
    #: back into the seed (`grade seed TOKEN`), which the report never shows (grader.core.seeds)
    seed_token: str | None = None

    @property
    def seed_shown(self) -> str:
        """How a report names its seed: the number, or
        the token the instructor turns back into it."""
        return (
            f"seed token {self.seed_token}" if self.seed_token is not None else f"seed {self.seed}"
        )

    @property
    def score(self) -> float:
        return round(sum(e.score for e in self.exercises), 6)

    @property
    def max_score(self) -> float:
        return round(sum(e.max_score for e in self.exercises), 6)

    @property
    def public_score(self) -> float:
        return round(sum(e.public_score for e in self.exercises), 6)

    @property
    def hidden_points(self) -> float:
        """Points in hidden checks this report leaves out: graded after the student submits."""
        return round(sum(e.hidden_points for e in self.exercises), 6)

    @property
    def exit_code(self) -> ExitCode:
        """OK when every check that ran passed; CHECKS_FAILED when any failed or errored.

        Skipped checks (for instance CUDA on a machine without a GPU) cost nothing.
        """
        statuses = set()
        for exercise in self.exercises:
            statuses |= {c.status for c in exercise.checks}
        return ExitCode.CHECKS_FAILED if statuses & {"failed", "error"} else ExitCode.OK


@dataclass(frozen=True, slots=True, kw_only=True)
class Graded:
    """One submission graded against one or more exercises, before it becomes a `Report`."""

    exercises: tuple[ExerciseResult, ...]
    problems: tuple[str, ...]
    output: str
    output_truncated: bool
    #: the weakest isolation any of its runs had
    isolation: Isolation | None = None
    #: imports the guard refused, and imports of modules the exercise does not allow
    notes: tuple[str, ...] = ()
    integrity: tuple[str, ...] = ()


def build_report(
    graded: Graded,
    *,
    submission: str,
    sha256: str,
    seed: int,
    seconds: float = 0.0,
    notes: Sequence[str] = (),
    seed_token: str | None = None,
) -> Report:
    """The report of a grading: the only place a `Report` is
    assembled (`grader.outputs.render_json` reads one back).

    `submission`: how the report names the graded file; `notes`: facts
    about how it was read, before the run's own; `seed_token`: where the
    seed was drawn from a course secret, the token shown instead of it.
    """
    return Report(
        submission=submission,
        sha256=sha256,
        seed=None if seed_token is not None else seed,
        seed_token=seed_token,
        exercises=graded.exercises,
        grader_version=__version__,
        seconds=seconds,
        problems=graded.problems,
        notes=(*notes, *graded.notes),
        isolation=graded.isolation,
        integrity=graded.integrity,
        output=graded.output,
        output_truncated=graded.output_truncated,
    )


def not_graded(exercises: Sequence[Exercise], problem: str, cause: Cause) -> Graded:
    """A grading that never ran: every check of the exercises scores 0, for `problem`."""
    results = tuple(
        ExerciseResult(
            id=e.id,
            title=e.title,
            checks=tuple(
                CheckResult(
                    name=p.name,
                    about="",
                    status="error",
                    score=0.0,
                    max_score=p.points,
                    problem="Not run: see the problem above.",
                    visibility=p.visibility,
                    cause=cause,
                )
                for p in e.probes
            ),
            hidden_points=e.hidden_points,
        )
        for e in exercises
    )
    return Graded(exercises=results, problems=(problem,), output="", output_truncated=False)


def exercise_mistakes(result: ExerciseResult) -> tuple[list[tuple[str, str, int]], int]:
    """The distinct diagnoses of an exercise's failed checks,
    (kind, mistake, checks), and how many found none.

    Only checks that show expected and got values count as finding none: an error, a timeout or a
    missing class is its own explanation, already on the check.
    """
    counts = Counter(
        (c.diagnosis.kind, c.diagnosis.mistake)
        for c in result.checks
        if c.diagnosis is not None and c.diagnosis.kind != "unknown"
    )
    unknown = sum(
        1
        for c in result.checks
        if c.diagnosis is not None
        and c.diagnosis.kind == "unknown"
        and any(not o.ok for o in c.observations)
    )
    return [(kind, mistake, n) for (kind, mistake), n in counts.most_common()], unknown
