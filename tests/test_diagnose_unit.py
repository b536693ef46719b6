"""grader.judge.diagnose.passes on its own: hand-built runs of a student and of known mistakes in, the mistake
named out.

Precision first: every test that names a mistake has a twin in which the evidence is weaker or
ambiguous, and there the diagnosis names nothing (or says it is one of several). No sandbox, no oracle:
what the student's and each mutant's code observed is written down here.
"""

from __future__ import annotations

from collections.abc import Sequence

from hand_built import exercise, expect, group, mutant, no_inputs, numbers, observed, probe, run_result

from grader.core.exercise import Exercise
from grader.core.values import ErrorInfo, Text
from grader.judge.check import ExerciseRun, check_exercise
from grader.judge.diagnose.evidence import Evidence as Found
from grader.judge.diagnose.evidence import Given, MutantRun, OnDemand
from grader.judge.diagnose.passes import diagnose
from grader.judge.diagnose.slips import SLOPES, SlipRun
from grader.judge.oracle import Expected
from grader.judge.report import CheckResult, Diagnosis, ExerciseResult, RuleFault, exercise_mistakes
from grader.judge.rules import Violation
from grader.run.observed import Evidence, GroupRun

OVERWRITE, SWAPPED, NO_SEED = mutant("overwrite"), mutant("swapped"), mutant("no-seed")
SUB_Y = next(s for s in SLOPES if s.method == "__sub__" and s.operand == 1)
ADD_Y = next(s for s in SLOPES if s.method == "__add__" and s.operand == 1)
TYPE_ERROR = ErrorInfo("TypeError", "unsupported operand type(s) for *: 'int' and 'Node'")


def diagnosed(ex: Exercise, expected: Sequence[Expected], student: GroupRun, mutants: Sequence[MutantRun] = (),
              slips: Sequence[SlipRun] = ()) -> ExerciseResult:
    checked = check_exercise(ex, no_inputs(len(ex.probes)), tuple(expected),
                             {"cpu": ExerciseRun(run_result(student), student)})
    return diagnose_exercise(ex, checked, tuple(expected), student, mutants, slips=slips)


def diagnose_exercise(ex: Exercise, checked: ExerciseResult, expected: Sequence[Expected], student: GroupRun,
                      mutants: Sequence[MutantRun] = (), *, rules: frozenset[str] = frozenset(),
                      slips: Sequence[SlipRun] = ()) -> ExerciseResult:
    """The diagnosis of `checked`, from the student's run on the CPU and the known mistakes' runs."""
    return diagnose(Found(exercise=ex, result=checked, inputs=no_inputs(len(ex.probes)), expected=tuple(expected),
                          runs={"cpu": student}, rules=rules, on_demand=OnDemand(Given(mutants, slips))))


def named(check: CheckResult) -> str:
    """The mistake a check names, or "" where it names none."""
    d = check.diagnosis
    return "" if d is None or d.kind == "unknown" else d.mistake


def two_probes(engine: str = "scalar") -> tuple[Exercise, tuple[Expected, Expected]]:
    return (exercise(probe("p1"), probe("p2"), mutants=(OVERWRITE, SWAPPED, NO_SEED), engine=engine),
            (expect(x__grad=6.0), expect(x__grad=4.0)))


def runs(*values: float | ErrorInfo | None) -> GroupRun:
    """A run that observed x.grad = each value, raised each error, or did not finish the probe (None)."""
    return group(*(None if v is None else observed(error=v) if isinstance(v, ErrorInfo)
                   else observed(numbers(x__grad=v)) for v in values))


# ---- known mistakes ----------------------------------------------------------------------------------------


def test_a_check_that_gives_a_mutants_numbers_names_that_mistake_and_passed_checks_name_nothing() -> None:
    ex, expected = two_probes()
    result = diagnosed(ex, expected, runs(3.7, 4.0), [MutantRun(OVERWRITE, runs(3.7, 4.0))])
    failed, passed = result.checks
    assert failed.diagnosis == Diagnosis(
        kind="known-mistake", mistake="overwrite", hint="the hint of overwrite",
        evidence="every value matches what the known mistake overwrite gives on these inputs")
    assert passed.status == "passed" and passed.diagnosis is None


def test_a_mutant_that_also_fails_a_check_the_student_passes_is_not_the_students_mistake() -> None:
    # a student who made that mistake would fail p2 as well
    ex, expected = two_probes()
    result = diagnosed(ex, expected, runs(3.7, 4.0), [MutantRun(OVERWRITE, runs(3.7, 5.0))])
    assert named(result.checks[0]) == ""


def test_other_numbers_than_the_mutants_name_nothing() -> None:
    ex, expected = two_probes()
    result = diagnosed(ex, expected, runs(3.7, 4.0), [MutantRun(OVERWRITE, runs(3.6, 4.0))])
    assert result.checks[0].diagnosis is not None and result.checks[0].diagnosis.kind == "unknown"


def test_a_mutant_that_could_not_be_run_is_never_named() -> None:
    ex, expected = two_probes()
    assert named(diagnosed(ex, expected, runs(3.7, 1.0), [MutantRun(OVERWRITE, None)]).checks[0]) == ""


def test_where_two_mutants_give_the_same_numbers_the_one_that_fits_more_checks_wins() -> None:
    ex, expected = two_probes()
    student = runs(3.7, 1.5)
    result = diagnosed(ex, expected, student, [MutantRun(SWAPPED, runs(3.7, 4.0)), MutantRun(OVERWRITE, student)])
    assert [named(c) for c in result.checks] == ["overwrite", "overwrite"]


def test_a_tie_between_mutants_names_both_as_one_of() -> None:
    ex, expected = two_probes()
    result = diagnosed(ex, expected, runs(3.7, 4.0),
                       [MutantRun(SWAPPED, runs(3.7, 4.0)), MutantRun(OVERWRITE, runs(3.7, 4.0))])
    diagnosis = result.checks[0].diagnosis
    assert diagnosis is not None and diagnosis.kind == "known-mistake"
    assert diagnosis.mistake == "overwrite"  # the first by name: the order of the mutants does not matter
    assert diagnosis.hint == "the hint of overwrite / the hint of swapped"
    assert diagnosis.evidence == "the values match more than one known mistake here: overwrite or swapped"


# ---- weak evidence: exceptions, texts, zeros ---------------------------------------------------------


def test_an_engines_own_exception_names_no_mistake_even_where_only_one_mutant_raises_it() -> None:
    # an engine's check that raised has no values to compare: what a mutant raised there names nothing (its
    # error may state a cause itself, grader.judge.diagnose.named_errors); in a torch exercise it is torch's own error
    ex, expected = two_probes()
    result = diagnosed(ex, expected, runs(TYPE_ERROR, 4.0),
                       [MutantRun(OVERWRITE, runs(TYPE_ERROR, 4.0)), MutantRun(SWAPPED, runs(1.0, 2.0))])
    assert result.checks[0].status == "error" and named(result.checks[0]) == ""


def test_an_exception_only_one_mistake_raises_names_it() -> None:
    ex, expected = two_probes("torch")
    result = diagnosed(ex, expected, runs(TYPE_ERROR, 4.0),
                       [MutantRun(OVERWRITE, runs(TYPE_ERROR, 4.0)), MutantRun(SWAPPED, runs(1.0, 2.0))])
    assert named(result.checks[0]) == "overwrite"


def test_an_exception_two_mistakes_raise_names_neither() -> None:
    ex, expected = two_probes("torch")
    result = diagnosed(ex, expected, runs(TYPE_ERROR, 4.0),
                       [MutantRun(OVERWRITE, runs(TYPE_ERROR, 4.0)), MutantRun(SWAPPED, runs(TYPE_ERROR, 4.0))])
    assert result.checks[0].status == "error" and named(result.checks[0]) == ""


def test_an_exception_names_a_mistake_only_if_it_raises_wherever_the_student_does() -> None:
    ex = exercise(probe("p1"), probe("p2"), probe("p3"), mutants=(OVERWRITE,), engine="torch")
    expected = (expect(x__grad=6.0), expect(x__grad=4.0), expect(x__grad=2.0))
    key_error = ErrorInfo("KeyError", "'x'")
    # p3's numbers establish overwrite; but on p2 the student raises where overwrite gives a number
    result = diagnosed(ex, expected, runs(TYPE_ERROR, key_error, 1.3),
                       [MutantRun(OVERWRITE, runs(TYPE_ERROR, 4.5, 1.3))])
    assert [named(c) for c in result.checks] == ["", "", "overwrite"]
    same_errors = diagnosed(ex, expected, runs(TYPE_ERROR, key_error, 1.3),
                            [MutantRun(OVERWRITE, runs(TYPE_ERROR, key_error, 1.3))])
    assert [named(c) for c in same_errors.checks] == ["overwrite", "overwrite", "overwrite"]


def test_a_shared_exception_names_the_mistake_that_a_numeric_match_elsewhere_established() -> None:
    ex, expected = two_probes("torch")
    # both mistakes raise on p1; only overwrite gives the student's numbers on p2
    result = diagnosed(ex, expected, runs(TYPE_ERROR, 1.5),
                       [MutantRun(OVERWRITE, runs(TYPE_ERROR, 1.5)), MutantRun(SWAPPED, runs(TYPE_ERROR, 4.0))])
    assert [named(c) for c in result.checks] == ["overwrite", "overwrite"]


def test_zeros_a_second_mistake_also_gives_are_no_evidence() -> None:
    ex, expected = two_probes()
    alone = diagnosed(ex, expected, runs(0.0, 4.0), [MutantRun(NO_SEED, runs(0.0, 4.0))])
    assert named(alone.checks[0]) == "no-seed"
    shared = diagnosed(ex, expected, runs(0.0, 0.0),
                       [MutantRun(NO_SEED, runs(0.0, 0.0)), MutantRun(OVERWRITE, runs(0.0, 0.0))])
    assert named(shared.checks[0]) == "all-zero"  # the pattern of the numbers, not a mistake that many share
    assert shared.checks[0].diagnosis is not None and shared.checks[0].diagnosis.kind == "pattern"
    # on one check alone, zeros may be chance: no ratio is named from a single wrong check
    once = diagnosed(ex, expected, runs(0.0, 4.0),
                     [MutantRun(NO_SEED, runs(0.0, 4.0)), MutantRun(OVERWRITE, runs(0.0, 4.0))])
    assert named(once.checks[0]) == ""


def test_gradchecks_failure_text_is_no_evidence_for_any_one_mistake() -> None:
    gradcheck = "ok = gradcheck(MySigmoid.apply, (x,))\n"
    ex = exercise(probe("gradcheck", observe=("ok",), code=gradcheck), engine="torch", mutants=(OVERWRITE,))
    mismatch = Text("GradcheckError: Jacobian mismatch for output 0 with respect to input 0,")
    student = group(observed({"ok": mismatch}))
    result = diagnosed(ex, [Expected({"ok": Text("passed")})], student, [MutantRun(OVERWRITE, student)])
    assert result.checks[0].status == "failed" and named(result.checks[0]) == ""


# ---- patterns ------------------------------------------------------------------------------------------


def test_a_ratio_is_named_only_where_every_wrong_check_shows_the_same_one() -> None:
    ex, expected = two_probes()
    both_half = diagnosed(ex, expected, runs(3.0, 2.0))
    assert [named(c) for c in both_half.checks] == ["half", "half"]
    half_and_double = diagnosed(ex, expected, runs(3.0, 8.0))
    assert [named(c) for c in half_and_double.checks] == ["", ""]
    half_and_other = diagnosed(ex, expected, runs(3.0, 4.9))
    assert [named(c) for c in half_and_other.checks] == ["", ""]


def test_two_exchanged_gradients_are_named_on_their_own_check() -> None:
    ex = exercise(probe("p1", observe=("x.grad", "y.grad")), probe("p2"))
    student = group(observed(numbers(x__grad=2.0, y__grad=5.0)), observed(numbers(x__grad=4.9)))
    result = diagnosed(ex, [expect(x__grad=5.0, y__grad=2.0), expect(x__grad=4.0)], student)
    assert [named(c) for c in result.checks] == ["exchanged", ""]


# ---- sign slips --------------------------------------------------------------------------------------------


def test_a_check_whose_every_value_a_slipped_engine_gives_names_that_slope() -> None:
    ex, expected = two_probes()
    slip = SlipRun(SUB_Y, False, runs(1.3, 4.0))
    result = diagnosed(ex, expected, runs(1.3, 4.0), slips=[slip])
    diagnosis = result.checks[0].diagnosis
    assert diagnosis is not None and (diagnosis.kind, diagnosis.mistake) == ("pattern", "negated")
    assert diagnosis.rule == RuleFault(method="__sub__", operand="other", how="negated")
    assert diagnosis.hint == SUB_Y.hint
    assert diagnosis.evidence == "every value matches the reference engine with the sign of d(x - y)/dy (__sub__) " \
        "flipped"


def test_a_slip_that_breaks_a_check_the_student_passes_gives_way_to_one_that_does_not() -> None:
    ex, expected = two_probes()
    wrong_on_p2 = SlipRun(ADD_Y, False, runs(1.3, 9.0))
    right_on_p2 = SlipRun(SUB_Y, False, runs(1.3, 4.0))
    result = diagnosed(ex, expected, runs(1.3, 4.0), slips=[wrong_on_p2, right_on_p2])
    diagnosis = result.checks[0].diagnosis
    assert diagnosis is not None and diagnosis.rule is not None and diagnosis.rule.method == "__sub__"


def test_slips_that_fit_equally_are_named_as_one_of_without_a_rule() -> None:
    ex, expected = two_probes()
    result = diagnosed(ex, expected, runs(1.3, 4.0),
                       slips=[SlipRun(ADD_Y, False, runs(1.3, 4.0)), SlipRun(SUB_Y, False, runs(1.3, 4.0))])
    diagnosis = result.checks[0].diagnosis
    assert diagnosis is not None and diagnosis.mistake == "negated" and diagnosis.rule is None
    assert diagnosis.evidence.startswith("every value matches the reference engine with the sign of one of ")
    assert diagnosis.hint == f"{ADD_Y.hint} / {SUB_Y.hint}"


# ---- rules, hidden checks, the grader's own failures -----------------------------------------------------


def test_right_values_that_break_a_rule_name_the_rule_or_the_mutant_that_breaks_it_too() -> None:
    ex = exercise(probe("p"), mutants=(OVERWRITE,))
    expected = (expect(x__grad=6.0),)
    student = runs(6.0)
    rule = "calls torch.autograd.grad, which this exercise forbids"
    checked = check_exercise(ex, no_inputs(1), expected, {"cpu": ExerciseRun(run_result(student), student)},
                             (Violation(rule, 3),))
    alone = diagnose_exercise(ex, checked, expected, student, [], rules=frozenset({rule}))
    diagnosis = alone.checks[0].diagnosis
    assert diagnosis is not None and diagnosis.mistake == "breaks-a-rule"
    assert diagnosis.evidence == f"the values are right, but: {rule}"
    like_a_mutant = diagnose_exercise(ex, checked, expected, student,
                                      [MutantRun(OVERWRITE, runs(6.0), rules=frozenset({rule}))],
                                      rules=frozenset({rule}))
    assert named(like_a_mutant.checks[0]) == "overwrite"
    other_rules = diagnose_exercise(ex, checked, expected, student,
                                    [MutantRun(OVERWRITE, runs(6.0), rules=frozenset({"another rule"}))],
                                    rules=frozenset({rule}))
    assert named(other_rules.checks[0]) == "breaks-a-rule"  # a mutant that breaks other rules is not this one


def test_a_run_that_breaks_the_autograd_rule_is_named_by_the_rule() -> None:
    ex = exercise(probe("p", gradients=(("x.grad", "a"),)), engine="torch", autograd="required")
    student = group(observed(numbers(x__grad=6.0), evidence=Evidence(runs=0)))
    result = diagnosed(ex, [expect(x__grad=6.0)], student)
    diagnosis = result.checks[0].diagnosis
    assert result.checks[0].status == "failed" and diagnosis is not None and diagnosis.mistake == "breaks-a-rule"
    assert "torch's autograd never ran" in diagnosis.evidence


def test_a_hidden_check_keeps_the_mistakes_name_but_not_the_evidence() -> None:
    ex = exercise(probe("p1", visibility="hidden"), probe("p2"), mutants=(OVERWRITE,))
    result = diagnosed(ex, [expect(x__grad=6.0), expect(x__grad=4.0)], runs(3.7, 4.0),
                       [MutantRun(OVERWRITE, runs(3.7, 4.0))])
    diagnosis = result.checks[0].diagnosis
    assert diagnosis is not None and diagnosis.mistake == "overwrite" and diagnosis.hint == "the hint of overwrite"
    assert diagnosis.evidence == "withheld: this check is hidden"


def test_the_graders_own_bug_costs_the_diagnoses_and_nothing_else() -> None:
    ex, expected = two_probes()
    student = runs(3.7, 4.0)
    checked = check_exercise(ex, no_inputs(2), expected, {"cpu": ExerciseRun(run_result(student), student)})
    # one expected value short: diagnosing the second probe fails inside the grader
    result = diagnose_exercise(ex, checked, expected[:1], student,
                               [MutantRun(OVERWRITE, runs(3.7, 4.0))])
    failed, passed = result.checks
    assert failed.diagnosis is not None and failed.diagnosis.kind == "unknown"
    assert failed.diagnosis.evidence.startswith("the grader could not diagnose this check (IndexError")
    assert passed.diagnosis is None
    assert [(c.status, c.score, c.problem) for c in result.checks] == [(c.status, c.score, c.problem)
                                                                      for c in checked.checks]


def test_a_check_on_a_device_without_a_run_is_not_diagnosed() -> None:
    ex = exercise(probe("p", devices=("cpu", "cuda")), mutants=(OVERWRITE,))
    student = runs(3.7)
    checked = check_exercise(ex, no_inputs(1), (expect(x__grad=6.0),),
                             {"cpu": ExerciseRun(run_result(student), student), "cuda": "no CUDA here"})
    result = diagnose_exercise(ex, checked, (expect(x__grad=6.0),), student,
                               [MutantRun(OVERWRITE, runs(3.7))])
    cpu, cuda = result.checks
    assert named(cpu) == "overwrite" and cuda.status == "skipped" and cuda.diagnosis is None


# ---- the summing-up ------------------------------------------------------------------------------------


def test_exercise_mistakes_counts_each_named_mistake_and_the_unexplained_checks_with_values() -> None:
    ex = exercise(probe("a"), probe("b"), probe("c"), probe("d"), mutants=(OVERWRITE,))
    expected = [expect(x__grad=6.0), expect(x__grad=4.0), expect(x__grad=5.0), expect(x__grad=1.0)]
    # a and b: overwrite; c: numbers nothing explains; d: an exception nothing explains (its own explanation)
    student = runs(3.7, 2.9, 4.1, ErrorInfo("KeyError", "'x'"))
    result = diagnosed(ex, expected, student, [MutantRun(OVERWRITE, runs(3.7, 2.9, 5.0, 1.0))])
    assert [named(c) for c in result.checks] == ["overwrite", "overwrite", "", ""]
    assert exercise_mistakes(result) == ([("known-mistake", "overwrite", 2)], 1)
