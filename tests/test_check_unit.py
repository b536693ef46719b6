"""grader.judge.check on its own: hand-built observed runs and expected values in; scores, causes and words out.

Every test here builds what the child observed (grader.run.observed) and what the oracle expects
(grader.judge.oracle.Expected) itself, so no sandbox and no oracle runs: a change in how a check is
scored or worded shows here, not only in the golden samples.
"""

from __future__ import annotations

from hand_built import exercise, expect, group, no_inputs, numbers, observed, probe, run_result

from grader.core.exercise import Exercise, Raises
from grader.core.values import Array, ErrorInfo, Number, Where
from grader.judge.check import (
    HIDDEN_ERROR,
    HIDDEN_FAILED,
    ExerciseRun,
    check_exercise,
    error_cause,
    run_problems,
    stop_cause,
)
from grader.judge.names import ClassFacts, Definitions
from grader.judge.oracle import Expected
from grader.judge.report import Cause, ExerciseResult
from grader.judge.rules import Violation
from grader.judge.run_rules import rule_breaks
from grader.run.observed import Evidence, GroupRun, RunResult, Stop

TIMEOUT = Stop("timeout", "did not finish within 5 s (the time limit)", "Look for a loop that never ends.")
STUB = ErrorInfo("NotImplementedError", "ex: implement Node.__mul__",
                 Where(9, "__mul__", 'raise NotImplementedError("ex: implement Node.__mul__")'))


def _check(ex: Exercise, expected: tuple[Expected, ...], student: GroupRun, run: RunResult | None = None,
           **more: object) -> ExerciseResult:
    run = run or run_result(student)
    return check_exercise(ex, no_inputs(len(ex.probes)), expected, {"cpu": ExerciseRun(run, student)},
                          **more)  # type: ignore[arg-type]


# ---- values compared ----------------------------------------------------------------------------------


def test_right_values_pass_with_the_probes_points_and_show_what_ran() -> None:
    ex = exercise(probe("p", points=2.5, observe=("out.value", "x.grad")))
    result = check_exercise(ex, ({"a": 3.0},), (expect(out__value=9.0, x__grad=6.0),),
                            {"cpu": ExerciseRun(run_result(g := group(observed(numbers(out__value=9.0,
                                                                                       x__grad=6.0 + 1e-9)))), g)})
    (check,) = result.checks
    assert (check.status, check.score, check.max_score, check.problem) == ("passed", 2.5, 2.5, "")
    assert check.cause == Cause("passed")
    assert check.inputs == (("a", "3"),) and check.input_values == (("a", 3.0),) and check.code == ex.probes[0].code
    assert [(o.label, o.ok) for o in check.observations] == [("out.value", True), ("x.grad", True)]
    assert (result.score, result.max_score, result.problems) == (2.5, 2.5, ())


def test_a_wrong_value_fails_with_both_numbers_and_scores_nothing() -> None:
    ex = exercise(probe("p", points=2, observe=("out.value", "x.grad")))
    result = _check(ex, (expect(out__value=9.0, x__grad=6.0),), group(observed(numbers(out__value=9.0, x__grad=3.0))))
    (check,) = result.checks
    assert (check.status, check.score, check.max_score) == ("failed", 0.0, 2.0)
    assert check.problem == "x.grad: expected 6.0, got 3.0."
    assert check.cause == Cause("wrong-value")
    wrong = [o for o in check.observations if not o.ok]
    assert [(o.label, o.expected, o.got, o.expected_value, o.got_value) for o in wrong] == \
        [("x.grad", "6.0", "3.0", 6.0, 3.0)]


def test_partial_credit_is_the_share_of_right_observations_only_where_the_probe_allows_it() -> None:
    values = numbers(a=1.0, b=2.0, c=3.0, d=4.0)
    got = observed({**values, "d": Number(-4.0)})
    for partial, score in ((True, 1.5), (False, 0.0)):
        ex = exercise(probe("p", points=2, observe=tuple(values), partial=partial))
        (check,) = _check(ex, (Expected(values),), group(got)).checks
        assert (check.status, check.score) == ("failed", score)


def test_an_observation_that_never_arrived_is_nothing_not_a_crash() -> None:
    ex = exercise(probe("p", observe=("out.value", "x.grad")))
    (check,) = _check(ex, (expect(out__value=9.0, x__grad=6.0),), group(observed(numbers(out__value=9.0)))).checks
    assert check.status == "failed" and check.problem == "x.grad: nothing was observed."
    assert [o.got for o in check.observations] == ["9.0", "nothing"]


def test_an_observation_whose_reading_raised_is_wrong_with_the_exception_as_its_cause() -> None:
    ex = exercise(probe("p", observe=("out.value", "x.grad")))
    raised = ErrorInfo("RecursionError", "maximum recursion depth exceeded",
                       Where(12, "__radd__", "return other + self"))
    (check,) = _check(ex, (expect(out__value=9.0, x__grad=6.0),),
                      group(observed({"out.value": Number(9.0), "x.grad": raised}))).checks
    assert check.status == "failed"
    assert check.problem.startswith("x.grad: expected 6.0, but reading it raised RecursionError")
    assert "Hint: a function calls itself without end" in check.problem  # a hint that holds in any engine
    assert check.cause == Cause("exception", "RecursionError", 12)


def test_a_wrong_shape_fails_and_says_so() -> None:
    ex = exercise(probe("p"))
    want = Expected({"x.grad": Array((2,), (1.0, 2.0))})
    (check,) = _check(ex, (want,), group(observed({"x.grad": Array((2, 1), (1.0, 2.0))}))).checks
    assert check.status == "failed" and "shape" in check.problem


# ---- errors, stops and missing names --------------------------------------------------------------------


def test_an_exception_is_an_error_with_its_place_and_cause() -> None:
    error = ErrorInfo("ZeroDivisionError", "float division by zero", Where(4, "__truediv__", "return a / b"))
    (check,) = _check(exercise(probe("p")), (expect(x__grad=1.0),), group(observed(error=error))).checks
    assert check.status == "error" and check.score == 0.0
    assert check.problem == ("Your code raised ZeroDivisionError: float division by zero "
                             "(line 4, in __truediv__(): return a / b).")
    assert check.cause == Cause("exception", "ZeroDivisionError", 4)


def test_a_starters_stub_is_not_attempted_but_torchs_own_not_implemented_is_an_exception() -> None:
    (check,) = _check(exercise(probe("p")), (expect(x__grad=1.0),), group(observed(error=STUB))).checks
    assert check.problem == ('Not implemented yet: ex: implement Node.__mul__ (line 9, in __mul__(): '
                             'raise NotImplementedError("ex: implement Node.__mul__")).')
    assert check.cause == Cause("not-attempted", "NotImplementedError", 9)
    torchs = ErrorInfo("NotImplementedError", "no kernel for this dtype", Where(3, "f", "return t.sum()"))
    assert error_cause(torchs) == Cause("exception", "NotImplementedError", 3)
    assert error_cause(ErrorInfo("NotImplementedError", "")) == Cause("exception", "NotImplementedError", None)


def test_a_timeout_blames_the_check_it_stopped_in_and_leaves_the_rest_not_run() -> None:
    ex = exercise(probe("first"), probe("slow"), probe("after"))
    student = group(observed(numbers(x__grad=1.0)), None, None, stopped_at=1, stop=TIMEOUT)
    result = _check(ex, (expect(x__grad=1.0),) * 3, student)
    first, slow, after = result.checks
    assert first.status == "passed"
    assert slow.status == "error" and slow.problem == "Your code did not finish within 5 s (the time limit) while " \
        "running this check."
    assert slow.cause == Cause("timeout", "timeout")
    assert after.status == "error" and after.problem == "Not run: your code stopped before this check (see above)."
    assert after.cause == Cause("timeout", "timeout") and after.code == "" and after.about == ""
    assert result.problems == ("Your code did not finish within 5 s (the time limit) during check 'slow'. "
                               "Look for a loop that never ends. The checks it could not finish score 0.",)
    assert result.score == 1.0 and result.max_score == 3.0


def test_the_graders_own_failure_is_never_worded_as_the_students() -> None:
    crashed = Stop("grader", "ran into a failure of the grader's own code (KeyError: 'x')", "Please report it.")
    ex = exercise(probe("p"))
    result = _check(ex, (expect(x__grad=1.0),), group(None, stopped_at=0, stop=crashed))
    (check,) = result.checks
    assert check.problem == ("The grader failed while running this check: ran into a failure of the grader's own "
                             "code (KeyError: 'x'). Please report it.")
    assert check.cause == Cause("grader", "grader")
    assert result.problems == ("The grader failed during check 'p': ran into a failure of the grader's own code "
                               "(KeyError: 'x'). Please report it.",)
    assert not any(p.startswith("Your code") for p in result.problems)


def test_each_stop_kind_has_its_own_cause() -> None:
    kinds = {"timeout": "timeout", "cpu": "cpu-time", "memory": "memory", "signal": "signal", "exit": "exit",
             "reply-size": "output-limit", "forged-reply": "reply", "grader": "grader", "unknown": "exit"}
    for kind, cause in kinds.items():
        assert stop_cause(Stop(kind, "stopped")) == Cause(cause, kind)  # type: ignore[arg-type]


def test_a_missing_name_says_what_the_file_lacks_and_which_checks_need_it() -> None:
    ex = exercise(probe("needs Node"), probe("needs nothing missing"))
    student = group(None, observed(numbers(x__grad=1.0)), missing=("class `Node`",), needs=(("Node",), ()))
    result = _check(ex, (expect(x__grad=1.0),) * 2, student)
    needs, fine = result.checks
    assert needs.status == "error" and needs.problem == "Not run: it needs `Node`, which your file does not define."
    assert needs.cause == Cause("missing-name", "Node")
    assert fine.status == "passed" and fine.score == 1.0  # partial credit by name
    assert result.problems == ("Your file does not define class `Node`; exercise ex's checks that use it are not run.",)


def test_a_class_under_another_name_is_pointed_out_where_the_wanted_one_is_not_found() -> None:
    ex = exercise(probe("p", observe=("out.value", "x.grad")))
    student = group(None, missing=("`Node` (a class): found nothing",), needs=(("Node",),))
    value = ClassFacts("Value", frozenset({"__init__", "__mul__"}), ("data", "grad", "_backward"), False)
    defined = Definitions(classes={"Value": value}, functions=("train",), aliases={})
    result = _check(ex, (expect(out__value=1.0, x__grad=1.0),), student, defined=defined)
    assert result.problems == ("Your file does not define `Node` (a class): found nothing; exercise ex's checks that "
                               "use it are not run. It defines class `Value` (with `.data`, `.grad`), function "
                               "`train`; this exercise reads `Node(...)`, `.value` and `.grad`.",)
    other = group(None, missing=("`Node` (a class): found a function",), needs=(("Node",),))
    assert "It defines" not in _check(ex, (expect(out__value=1.0, x__grad=1.0),), other,
                                      defined=defined).problems[0]


def test_in_a_notebook_the_words_say_notebook() -> None:
    ex = exercise(probe("p"))
    student = group(None, missing=("class `Node`",), needs=(("Node",),))
    result = _check(ex, (expect(x__grad=1.0),), student, run_result(student, kind="notebook"))
    assert result.checks[0].problem == "Not run: it needs `Node`, which your notebook does not define."
    assert result.problems[0].startswith("Your notebook does not define class `Node`")


def test_a_file_that_did_not_load_leaves_every_check_not_run_with_the_load_error_as_cause() -> None:
    syntax = ErrorInfo("SyntaxError", "invalid syntax", Where(7, "<module>", "def f(:"))
    ex = exercise(probe("a"), probe("b"))
    student = group(None, None)
    result = _check(ex, (expect(x__grad=1.0),) * 2, student, run_result(student, loaded=False, cell_errors=(syntax,)))
    for check in result.checks:
        assert check.status == "error" and check.problem == "Not run: your file did not load (see above)."
        assert check.cause == Cause("exception", "SyntaxError", 7)
    assert result.problems == ()  # the file's own trouble is the report's, said once (run_problems)


def test_an_oracle_disagreement_is_the_graders_bug_and_scores_nothing() -> None:
    ex = exercise(probe("p"))
    want = Expected(numbers(x__grad=6.0), ("x.grad: the torch engine disagrees with the reference engine",))
    (check,) = _check(ex, (want,), group(observed(numbers(x__grad=6.0)))).checks
    assert check.status == "error" and check.score == 0.0 and check.cause == Cause("grader", "the oracles disagree")
    assert "x.grad: the torch engine disagrees" in check.problem and "not in your code" in check.problem


# ---- probes that must raise ------------------------------------------------------------------------------


def test_a_probe_that_must_raise_passes_only_on_that_error_with_that_message() -> None:
    ex = exercise(probe("raises", raises=Raises("ValueError", "negative")))
    want = (Expected(ErrorInfo("ValueError", "negative input")),)
    right = _check(ex, want, group(observed(error=ErrorInfo("ValueError", "a negative input")))).checks[0]
    assert (right.status, right.score) == ("passed", 1.0)
    silent = _check(ex, want, group(observed(numbers(x__grad=1.0)))).checks[0]
    assert silent.status == "failed"
    assert silent.problem == "Expected ValueError with 'negative' in its message, but the code finished without an " \
        "error."
    other = _check(ex, want, group(observed(error=ErrorInfo("ValueError", "too big")))).checks[0]
    assert other.status == "failed" and other.problem == "Expected ValueError with 'negative' in its message; got " \
        "ValueError: too big."
    assert other.cause == Cause("exception", "ValueError")


# ---- hidden checks ------------------------------------------------------------------------------------


def test_a_hidden_check_withholds_its_details_but_not_its_name_or_score() -> None:
    ex = exercise(probe("secret", visibility="hidden"))
    result = check_exercise(ex, ({"a": 3.0},), (expect(x__grad=6.0),),
                            {"cpu": ExerciseRun(run_result(g := group(observed(numbers(x__grad=3.0)))), g)})
    (check,) = result.checks
    assert (check.name, check.status, check.visibility, check.max_score) == ("secret", "failed", "hidden", 1.0)
    assert check.problem == HIDDEN_FAILED and "3.0" not in check.problem
    assert (check.inputs, check.input_values, check.code, check.observations) == ((), (), "", ())
    passed = check_exercise(ex, ({"a": 3.0},), (expect(x__grad=6.0),),
                            {"cpu": ExerciseRun(run_result(g := group(observed(numbers(x__grad=6.0)))), g)})
    assert passed.checks[0].status == "passed" and passed.checks[0].inputs == ()


def test_a_hidden_error_says_only_that_it_did_not_finish() -> None:
    # a submission chooses its exceptions' types, messages and lines: any of them could carry the inputs out
    ex = exercise(probe("secret", visibility="hidden"))
    (check,) = _check(ex, (expect(x__grad=6.0),), group(observed(error=STUB))).checks
    assert check.status == "error" and check.cause == Cause("not-attempted")
    assert check.problem == HIDDEN_ERROR
    leak = ErrorInfo("E_3_0", "a = 3.0, b = 4.0", Where(12, "__mul__", "raise ValueError(...)", "node.py"))
    (check,) = _check(ex, (expect(x__grad=6.0),), group(observed(error=leak))).checks
    assert check.problem == HIDDEN_ERROR and check.cause == Cause("exception")
    public = exercise(probe("open"))
    (check,) = _check(public, (expect(x__grad=6.0),), group(observed(error=leak))).checks
    assert "a = 3.0, b = 4.0" in check.problem  # a public check keeps the message: it is where to look


# ---- devices -------------------------------------------------------------------------------------------


def test_a_device_that_did_not_run_is_skipped_and_costs_nothing() -> None:
    ex = exercise(probe("p", points=2, devices=("cpu", "cuda")))
    student = group(observed(numbers(x__grad=1.0)))
    result = check_exercise(ex, no_inputs(1), (expect(x__grad=1.0),),
                            {"cpu": ExerciseRun(run_result(student), student),
                             "cuda": "CUDA is not available on this machine"})
    cpu, cuda = result.checks
    assert (cpu.name, cpu.status, cpu.score, cpu.max_score) == ("p", "passed", 2.0, 2.0)
    assert (cuda.name, cuda.status, cuda.score, cuda.max_score) == ("p [cuda]", "skipped", 0.0, 0.0)
    assert cuda.problem == "Skipped: CUDA is not available on this machine." and cuda.cause == Cause("skipped")
    assert (result.score, result.max_score) == (2.0, 2.0)


def test_devices_that_both_ran_share_the_points_and_prefix_their_problems() -> None:
    ex = exercise(probe("p", points=3, devices=("cpu", "cuda")), probe("cpu only"))
    right = group(observed(numbers(x__grad=1.0)), observed(numbers(x__grad=1.0)))
    wrong = group(observed(numbers(x__grad=2.0)), None, missing=("function `helper`",))
    result = check_exercise(ex, no_inputs(2), (expect(x__grad=1.0),) * 2,
                            {"cpu": ExerciseRun(run_result(right), right),
                             "cuda": ExerciseRun(run_result(wrong), wrong)})
    assert [(c.name, c.status, c.score, c.max_score) for c in result.checks] == \
        [("p", "passed", 1.5, 1.5), ("p [cuda]", "failed", 0.0, 1.5), ("cpu only", "passed", 1.0, 1.0)]
    assert result.problems == ("On CUDA: Your file does not define function `helper`; exercise ex's checks that use "
                               "it are not run.",)


def test_cuda_is_held_to_the_cuda_tolerance() -> None:
    ex = exercise(probe("p", devices=("cuda",)))
    near = group(observed(numbers(x__grad=1.0 + 1e-5)))  # float32 rounding: outside 1e-6, inside 1e-4
    (check,) = check_exercise(ex, no_inputs(1), (expect(x__grad=1.0),), {"cuda": ExerciseRun(run_result(near), near)}
                              ).checks
    assert check.status == "passed"
    (on_cpu,) = _check(exercise(probe("p")), (expect(x__grad=1.0),), near).checks
    assert on_cpu.status == "failed"


# ---- rules -------------------------------------------------------------------------------------------------


def test_a_broken_source_rule_scores_nothing_and_says_why_once() -> None:
    ex = exercise(probe("right"), probe("wrong"))
    student = group(observed(numbers(x__grad=1.0)), observed(numbers(x__grad=5.0)))
    result = _check(ex, (expect(x__grad=1.0),) * 2, student,
                    violations=(Violation("calls torch.autograd.grad, which this exercise forbids", 12),))
    right, wrong = result.checks
    assert (right.status, right.score, right.cause) == ("failed", 0.0, Cause("rule"))
    assert right.problem == "Right result, but not scored: see the rule above."
    assert (wrong.status, wrong.problem, wrong.cause) == ("failed", "x.grad: expected 1.0, got 5.0.",
                                                          Cause("wrong-value"))
    assert result.problems == ("Your code breaks a rule of exercise ex: calls torch.autograd.grad, which this "
                               "exercise forbids (line 12). No check is scored until it is fixed.",)
    assert result.score == 0.0 and result.max_score == 2.0


def _grads(evidence: Evidence | None, values: float = 6.0) -> tuple[Exercise, GroupRun]:
    ex = exercise(probe("p", observe=("x.grad",), gradients=(("x.grad", "a"),)), engine="torch", autograd="required")
    return ex, group(observed(numbers(x__grad=values), evidence=evidence))


def test_autograd_required_passes_gradients_the_engine_produced_within_tolerance() -> None:
    # float32 gradients read back as floats: within the check's tolerance of what the engine produced
    ex, student = _grads(Evidence(runs=1, produced=(6.0000000001,)))
    assert rule_breaks(ex, ex.probes[0], student.probes[0]) == ()
    assert _check(ex, (expect(x__grad=6.0),), student).checks[0].status == "passed"


def test_autograd_required_fails_right_values_worked_out_by_hand() -> None:
    ex, never = _grads(Evidence(runs=0))
    (check,) = _check(ex, (expect(x__grad=6.0),), never).checks
    assert (check.status, check.score, check.cause.kind) == ("failed", 0.0, "rule")
    assert check.problem.startswith("Right values, but not scored: torch's autograd never ran during this check")
    _, elsewhere = _grads(Evidence(runs=1, produced=(3.0, 2.0)))
    assert rule_breaks(ex, ex.probes[0], elsewhere.probes[0]) == (
        "x.grad is not what backward() computed: worked out by hand, or taken from another graph than the one the "
        "check asks about",)
    _, set_by_hand = _grads(Evidence(runs=1, not_from_engine=("x",), produced=(6.0,)))
    assert rule_breaks(ex, ex.probes[0], set_by_hand.probes[0]) == (
        "x.grad is not what backward() left there: it was set by hand, or changed after",)
    _, unseen = _grads(None)
    assert rule_breaks(ex, ex.probes[0], unseen.probes[0]) == (
        "the grader saw no record of what autograd did during this check",)


def test_a_failed_check_that_also_breaks_the_rule_says_both_unless_hidden() -> None:
    ex, wrong = _grads(Evidence(runs=0), values=5.0)
    (check,) = _check(ex, (expect(x__grad=6.0),), wrong).checks
    assert check.problem == "x.grad: expected 6.0, got 5.0. Also: torch's autograd never ran during this check: " \
        "the gradients must come from backward() (or torch.autograd.grad), not be worked out by hand."
    hidden = exercise(probe("p", gradients=(("x.grad", "a"),), visibility="hidden"), engine="torch",
                      autograd="required")
    (check,) = _check(hidden, (expect(x__grad=6.0),), wrong).checks
    assert check.problem == HIDDEN_FAILED


def test_forbidden_operators_and_autograd_forbidden_which_needs_no_record() -> None:
    ex = exercise(probe("p"), engine="torch", forbid_ops=("sigmoid_backward",))
    ran = observed(numbers(x__grad=1.0), evidence=Evidence(runs=2, forbidden_ops=("sigmoid_backward",)))
    assert rule_breaks(ex, ex.probes[0], ran) == (
        "your code ran torch's own sigmoid_backward, the derivative this exercise asks you to write",)
    clean = observed(numbers(x__grad=1.0), evidence=Evidence(runs=0))
    assert rule_breaks(ex, ex.probes[0], clean) == ()
    # autograd: forbidden leaves torch out of the tree: there is nothing to record, and nothing is missing
    torch_free = exercise(probe("p"), engine="torch", autograd="forbidden")
    assert not torch_free.uses_torch and torch_free.probe_arrays == "none"
    assert rule_breaks(torch_free, torch_free.probes[0], observed(numbers(x__grad=1.0))) == ()


def test_complex_numbers_break_forbid_complex_and_a_hidden_check_does_not_say_where() -> None:
    seen = Evidence(runs=0, complex_at="in manual_backward(), line 7")
    for visibility, text in (("public", " (in manual_backward(), line 7)"), ("hidden", "")):
        ex = exercise(probe("p", visibility=visibility), engine="tensor", forbid_complex=True)
        assert rule_breaks(ex, ex.probes[0], observed(numbers(x__grad=1.0), evidence=seen)) == (
            f"your code computed with complex numbers{text}: a complex step finds a derivative without deriving it, "
            "and this exercise asks for each one by hand",)
        assert rule_breaks(ex, ex.probes[0], observed(numbers(x__grad=1.0), evidence=Evidence(runs=0))) == ()
    allowed = exercise(probe("p"), engine="tensor")
    assert rule_breaks(allowed, allowed.probes[0], observed(numbers(x__grad=1.0), evidence=seen)) == ()


def test_rules_about_autograd_are_not_read_where_nothing_ran_or_no_rule_applies() -> None:
    ex = exercise(probe("p"), engine="torch", autograd="required")
    assert rule_breaks(ex, ex.probes[0], None) == ()
    assert rule_breaks(ex, ex.probes[0], observed(error=STUB)) == ()  # the error is what is wrong
    must_raise = exercise(probe("p", raises=Raises("ValueError", "")), engine="torch", autograd="required")
    assert rule_breaks(must_raise, must_raise.probes[0], observed(error=ErrorInfo("ValueError", ""))) == ()
    no_rule = exercise(probe("p"))
    assert rule_breaks(no_rule, no_rule.probes[0], observed(numbers(x__grad=1.0))) == ()


# ---- the submission as a whole ------------------------------------------------------------------------


def test_run_problems_of_a_file_that_did_not_load() -> None:
    syntax = ErrorInfo("SyntaxError", "invalid syntax", Where(7, "<module>", "def f(:"))
    assert run_problems(run_result(loaded=False, cell_errors=(syntax,))) == [
        "Your file could not be loaded: SyntaxError: invalid syntax (line 7: def f(:)."]


def test_run_problems_of_a_notebook_go_on_past_a_failing_cell_and_name_the_stopping_cell() -> None:
    cell = ErrorInfo("NameError", "name 'np' is not defined", Where(2, "<module>", "np.zeros(3)", "cell 4"))
    problems = run_problems(run_result(kind="notebook", cell_errors=(cell,), stop=TIMEOUT, stopped_in_cell="cell 6",
                                       loaded=False))
    assert problems == [
        "A cell raised NameError: name 'np' is not defined (cell 4, line 2: np.zeros(3)); grading went on with the "
        "cells after it.",
        "Your code did not finish within 5 s (the time limit) while running cell 6. Look for a loop that never ends. "
        "The checks it could not finish score 0."]


def test_a_py_file_that_stops_while_loading_says_so() -> None:
    assert run_problems(run_result(loaded=False, stop=Stop("exit", "ended the process with exit code 3"))) == [
        "Your code ended the process with exit code 3 while loading your file. The checks it could not finish score 0."]


def test_a_cell_refused_only_for_this_exercises_imports_is_a_problem_in_the_first_run_only() -> None:
    refused = ErrorInfo("ImportError", "torch is not available in exercise node-mul", Where(1, "<module>",
                                                                                             "import torch", "cell 2"))
    other = ErrorInfo("ImportError", "No module named 'sympy'", Where(1, "<module>", "import sympy", "cell 3"))
    run = run_result(kind="notebook", cell_errors=(refused, other))
    assert len(run_problems(run)) == 2
    (later,) = run_problems(run, first=False)
    assert "sympy" in later


def test_a_known_error_while_loading_carries_its_hint() -> None:
    error = ErrorInfo("RecursionError", "maximum recursion depth exceeded")
    (problem,) = run_problems(run_result(loaded=False, cell_errors=(error,)))
    assert problem.startswith("Your file could not be loaded: RecursionError") and " Hint: a function calls itself" \
        in problem
