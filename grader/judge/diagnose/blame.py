"""Name the root rule on each failed check: a fault localized in one rule replaces the symptoms it explains.

A wrong `+` makes `-` look wrong too (x - y is x + (-y)), and a `**` without its coefficient makes `/`
look wrong (x / y is x * y ** -1): the mutant of node-sub whose second operand's sign is flipped, or
the reference engine with /'s denominator negated, can match such a check exactly. Where grader.judge.diagnose.faults
has put the fault in a rule the check's code uses (directly, or through what a method may be built
from), the check names that rule: a known mistake stays only if the mutant's own localization shows
the same fault, and a pattern of the numbers gives way to the rule behind it. Facts an error states
(a method that is missing) stay as they are.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType

from grader.core.exercise import Exercise, Probe
from grader.judge.diagnose.faults import Fault
from grader.judge.diagnose.localize import built_on
from grader.judge.diagnose.named_errors import STATED
from grader.judge.diagnose.slips import SLOPES
from grader.judge.report import CheckResult, Diagnosis, ExerciseResult, RuleFault
from grader.judge.uses import BASE, probe_uses

#: the localized mistake's id, by how the rule is wrong
MISTAKES = {"swapped": "swapped-locals", "negated": "negated-slope", "missing-upstream": "missing-upstream-factor",
            "from-output": "slope-from-output", "wrong-local": "wrong-local-slope", "traversal-order": "walk-order",
            "visited": "visited-nodes", "seeding": "output-seed", "accumulation": "lost-accumulation",
            "no-backward": "not-written-yet", "wrong-value": "wrong-forward-value",
            "missing-coefficient": "missing-coefficient"}
#: the ways wrong that say what the mistake is; "wrong-local" (another slope) or "traversal-order" cover several
_SPECIFIC = frozenset({"swapped", "negated", "missing-upstream", "from-output", "accumulation", "seeding",
                       "missing-coefficient"})
_NONE: Mapping[str, frozenset[tuple[str, str]]] = MappingProxyType({})
#: what each operation computes, for a student whose value is wrong
FORWARD = {"__add__": "x + y", "__radd__": "k + x", "__sub__": "x - y", "__rsub__": "k - x", "__mul__": "x * y",
           "__rmul__": "k * x", "__truediv__": "x / y", "__rtruediv__": "k / x", "__neg__": "-x",
           "__pow__": "x ** n", "relu": "max(x, 0)", "sigmoid": "1 / (1 + exp(-x))",
           "tanh": "(exp(x) - exp(-x)) / (exp(x) + exp(-x))", "exp": "e ** x", "log": "the natural log of x"}
#: patterns that state what an error says, not a shape of the numbers: they stay
_STATED = STATED
#: a known mistake whose own localization ran out of time twice cannot be held against the student's: no name
UNCONFIRMED = Diagnosis(kind="unknown", mistake="", hint="", evidence="withheld: the known mistake this matches "
                        "ran out of time on the grader's own small probes, twice, so it cannot be confirmed")


def blame(exercise: Exercise, result: ExerciseResult, probe_of: Mapping[int, int],
          found: Sequence[Fault] | Callable[[], Sequence[Fault]],
          mutant_faults: Mapping[str, frozenset[tuple[str, str]]]) -> ExerciseResult:
    """`probe_of`: each check failed on its values, and its probe; `found`: the localized faults, or how to
    find them (a run in the sandbox, made only where a check's diagnosis could change); `mutant_faults`:
    each known mistake's localized (method, how).

    A fault explains only what it can produce, wrong values: a check that raised, stopped or never ran is
    left out by the caller, and keeps what its error states.
    """
    if not any(_open(result.checks[i]) for i in probe_of):
        return result
    found = found() if callable(found) else found
    if not found:
        return result
    shown = [f for f in found if not f.masked]
    checks = list(result.checks)
    for index, probe_index in probe_of.items():
        check = checks[index]
        if check.status != "failed" or check.diagnosis is None:
            continue
        relevant = _relevant(exercise, probe_index, shown)
        if relevant:
            checks[index] = _named(check, relevant, mutant_faults)
    # a fault the seed hides counts where a failed check's code uses its rule: the check it will fail next
    named = {(f.rule.method, f.rule.how) for f in shown}
    hidden = [f for f in found if f.masked and (f.rule.method, f.rule.how) not in named
              and any(f in _relevant(exercise, probe_index, [f]) for probe_index in probe_of.values())]
    return dataclasses.replace(result, checks=tuple(checks), masked=tuple(
        dict.fromkeys(localized(f, mutant_faults) for f in hidden)))


def _open(check: CheckResult) -> bool:
    """A failed check whose diagnosis a localized fault could still change (not a fact an error states)."""
    diagnosis = check.diagnosis
    return check.status == "failed" and diagnosis is not None and diagnosis.mistake not in _STATED \
        and not (diagnosis.rule is not None and diagnosis.rule.how == "missing")


def _relevant(exercise: Exercise, probe_index: int, found: Sequence[Fault]) -> list[Fault]:
    """The faults that can explain a check: in a rule its code uses, or one that it may be built from."""
    probe = exercise.probes[probe_index]
    uses = probe_uses(exercise, probe)
    reach = set(uses).union(*(built_on(method) for method in uses))
    calls = probe.code.count(".backward(")
    relevant = [f for f in found if (f.rule.method == "backward" and (not f.across_calls or calls > 1))
                or f.rule.method in reach]
    if not reads_gradients(exercise, probe):
        relevant = [f for f in relevant if f.forward]  # a check of values alone: only a wrong value explains it
    # the most specific first: the walk, then what the exercise is about, then + and * under everything
    return sorted(relevant, key=lambda f: (f.rule.method != "backward", f.rule.method in BASE))


def reads_gradients(exercise: Exercise, probe: Probe) -> bool:
    """Whether a check reads a gradient (x.grad), or only values (relu(x).value)."""
    grad = exercise.contract.grad
    return bool(probe.gradients) or any(f".{grad}" in expression or expression == grad
                                        for _, expression in probe.observe)


def _named(check: CheckResult, relevant: list[Fault], mutant_faults: Mapping[str, frozenset[tuple[str, str]]]
           ) -> CheckResult:
    diagnosis = check.diagnosis
    assert diagnosis is not None
    if diagnosis.mistake in _STATED or (diagnosis.rule is not None and diagnosis.rule.how == "missing"):
        return check
    if diagnosis.kind != "known-mistake" and diagnosis.rule is not None and any(
            (f.rule.method, f.rule.how) == (diagnosis.rule.method, diagnosis.rule.how) for f in relevant):
        return check  # a slip in the very rule localization finds: the same verdict
    if diagnosis.kind == "known-mistake" and diagnosis.mistake not in mutant_faults:
        return dataclasses.replace(check, diagnosis=UNCONFIRMED)  # its own localization ran out of time, twice
    if diagnosis.kind == "known-mistake":
        agreeing = [f for f in relevant if (f.rule.method, f.rule.how) in mutant_faults.get(diagnosis.mistake, ())]
        if agreeing:  # the mutant's own localization shows the same fault: its name, with the rule
            return dataclasses.replace(check, diagnosis=dataclasses.replace(diagnosis, rule=agreeing[0].rule))
    return dataclasses.replace(check, diagnosis=localized(relevant[0], mutant_faults))


def localized(fault: Fault, mutant_faults: Mapping[str, frozenset[tuple[str, str]]] = _NONE) -> Diagnosis:
    """The fault as a diagnosis; named as the exercise's known mistake whose own localization shows the same."""
    same = sorted(m for m, found in mutant_faults.items() if (fault.rule.method, fault.rule.how) in found) \
        if fault.rule.how in _SPECIFIC else []
    return Diagnosis(kind="localized", mistake=same[0] if len(same) == 1 else mistake_id(fault),
                     hint=hint(fault.rule), evidence=f"run alone: {fault.evidence}", rule=fault.rule)


def mistake_id(fault: Fault) -> str:
    """The id of a localized fault: the exercises' own where it is the same mistake (one name everywhere: an
    operation that overwrites a grad is overwrite-not-accumulate, in a pack as in the instructor's grade)."""
    if fault.rule.how == "accumulation" and not fault.across_calls:
        return "overwrite-not-accumulate"
    return MISTAKES[fault.rule.how]


def hint(rule: RuleFault) -> str:
    """What to fix, for the rule and the way it is wrong."""
    method, how = rule.method, rule.how
    if method == "backward":
        return {
            "traversal-order": "backward() must visit every node once, in reverse topological order: sort the nodes "
                               "depth-first (each after the nodes it was made from), then walk the list backwards, so "
                               "that a node passes its grad on only once every node that uses it has added to it.",
            "visited": "Remember the nodes already listed in a set local to one backward() call: a node listed twice "
                       "passes its gradient on twice, and a mark left on the nodes from an earlier call makes the "
                       "next walk skip them.",
            "seeding": "Every node starts with grad 0; backward() sets the output's grad to 1.0 (d out/d out) before "
                       "the walk.",
            "accumulation": "Gradients add up: within a walk with +=, and across backward() calls (a leaf keeps its "
                            "grad, as in PyTorch); backward() must not reset them.",
        }.get(how, "backward() walks the graph wrongly.")
    slopes = [s for s in SLOPES if s.method == method]
    expression = slopes[0].expression if slopes else method
    which = [s for s in slopes if rule.operand == "both" or (s.operand == 0) == (rule.operand == "self")]
    formulas = "; ".join(f"d({s.expression})/d{s.variable} is {s.formula}" for s in which)
    ending = f" ({formulas})" if formulas else ""
    return {
        "swapped": f"The local slopes of {expression} ({method}) are exchanged: each operand must get the derivative "
                   f"with respect to itself{ending}.",
        "negated": f"A local slope of {expression} ({method}) has the wrong sign{ending}.",
        "missing-upstream": f"{method}'s backward passes its local slope on alone: multiply it by out.grad, the "
                            f"gradient arriving from above{ending}.",
        "from-output": f"{method}'s local slope mixes up the input and the output: it uses one where the formula "
                       f"needs the other{ending}.",
        "wrong-local": f"The local slope of {expression} ({method}) is wrong{ending}.",
        "wrong-value": f"{expression} ({method}) computes the wrong value: it must be "
                       f"{FORWARD.get(method, expression)}. Fix what it returns first: a slope written from a wrong "
                       "value is wrong too.",
        "missing-coefficient": "The power rule brings the exponent down as a factor: d(x ** n)/dx is "
                               "n * x ** (n - 1), not x ** (n - 1).",
        "no-backward": f"`{method}` has no backward yet: its value is right, but it passes no gradient to its "
                       f"operands (its node keeps the placeholder backward, or never gets the one written). Give it a "
                       f"backward that adds its local slope times out.grad to each operand's grad{ending}.",
        "accumulation": f"{method}'s backward must add to its inputs' grads with +=, not =: a node used twice (x used "
                        f"on both sides) gets both contributions.",
    }.get(how, f"{method} is wrong{ending}.")
