"""Names the syntax tree gives a whole check: a method its
instances hide, results still the starter's placeholders.

These facts (grader.judge.diagnose.code_facts) explain a failed check whatever
its values show, so they come last and replace what the values suggested:

- a check that calls `.backward()` on a class whose `__init__` sets `self.backward = lambda:
  None` runs the lambda, never the method: every gradient stays as it started, which reads
  like a missing seed, but the seed is in a method that never runs (shadowed-method);
- a check whose values are wrong and that calls `.backward()` on a class whose
  `backward` is still a placeholder (a body of `pass`, `...` or `return None`) ran
  nothing: every gradient stays as it started, which reads like a missing seed, but
  the whole method is not written yet (not-written-yet, the rule `backward` missing);
- a check whose wrong values are None read from a function's results that it only ever sets to
  None (`out, cache = None, None` ... `return out, cache`, as CS231n's starters hand them out), or
  that raised on such a None passed on, is told the function is not written yet (not-written-yet).
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Mapping

from grader.core.exercise import Exercise
from grader.core.values import Nothing
from grader.judge.diagnose.evidence import Evidence
from grader.judge.names import Definitions
from grader.judge.report import CheckResult, Diagnosis, ExerciseResult, RuleFault
from grader.run.observed import GroupRun


def name_from_code(evidence: Evidence, result: ExerciseResult) -> ExerciseResult:
    """The result, with each failed check that a fact of the syntax tree explains named by it."""
    exercise, ran, defined = evidence.exercise, evidence.ran, evidence.facts()
    if defined is None or not (
        defined.shadowed or defined.placeholders or defined.unwritten_methods
    ):
        return result
    shadowed = _shadowed_methods(exercise, defined)
    unwritten = _unwritten_backward(exercise, defined)
    checks = list(result.checks)
    for index, check in enumerate(checks):
        if check.status not in ("failed", "error") or index not in ran:
            continue
        probe_index, run = ran[index]
        code = exercise.probes[probe_index].code
        called = [(cls, method) for cls, method in shadowed if f".{method}(" in code]
        named = (
            (_shadowed(*called[0]) if called else None)
            or (
                _not_written(*unwritten)
                if unwritten is not None
                and check.status == "failed"
                and f".{unwritten[1]}(" in code
                else None
            )
            or _placeholder(check, code, run, probe_index, defined)
        )
        if named is not None:
            checks[index] = dataclasses.replace(check, diagnosis=named)
    return dataclasses.replace(result, checks=tuple(checks))


def _shadowed_methods(exercise: Exercise, defined: Definitions) -> list[tuple[str, str]]:
    """(class, method) shadowed on the exercise's classes; an operator's dunder is
    looked up on the type, so an instance attribute of its name hides nothing."""
    names = {exercise.contract.class_name} | {
        name for name, kind in exercise.defines if kind == "class"
    }
    classes = {facts.name for name in names if (facts := defined.class_named(name)) is not None}
    return sorted(
        (cls, method)
        for cls, method in defined.shadowed
        if cls in classes and not (method.startswith("__") and method.endswith("__"))
    )


def _unwritten_backward(exercise: Exercise, defined: Definitions) -> tuple[str, str] | None:
    """(class, method) where the exercise's class defines its backward method as a placeholder."""
    facts = defined.class_named(exercise.contract.class_name)
    method = exercise.contract.backward
    return (
        (facts.name, method)
        if facts is not None and (facts.name, method) in defined.unwritten_methods
        else None
    )


#: the longest name of the submission's a hint quotes whole (an identifier has no length limit)
_NAME_CHARS = 60


def _shown(name: str) -> str:
    return name if len(name) <= _NAME_CHARS else name[: _NAME_CHARS - 3] + "..."


def _shadowed(cls: str, method: str) -> Diagnosis:
    cls, method = _shown(cls), _shown(method)
    return Diagnosis(
        kind="pattern",
        mistake="shadowed-method",
        hint=(
            f"{cls}.__init__ sets self.{method} to a stand-in that does nothing, and an instance's "
            f"own attribute hides the class's method of the same name: every {cls}'s .{method}() "
            f"runs that stand-in, never your def {method}, so none of its work happens. Give the "
            "attribute another name (micrograd's is self._backward), or remove it."
        ),
        evidence=f"the syntax tree: {cls}.__init__ assigns self.{method}, "
        f"and {cls} defines {method}(); this check calls .{method}()",
    )


def _not_written(cls: str, method: str) -> Diagnosis:
    cls, method = _shown(cls), _shown(method)
    return Diagnosis(
        kind="pattern",
        mistake="not-written-yet",
        hint=(
            f"`{cls}.{method}()` is not written yet: its body is still a placeholder, "
            "so calling it does nothing and every gradient stays as it started. Write "
            "it: seed the output's gradient with 1, then visit every node the output "
            "was made from, outputs first, each once, running each node's own step."
        ),
        evidence=f"the syntax tree: {cls}.{method}'s body is only a placeholder (pass, ... "
        f"or return None); this check calls .{method}() and its values are wrong",
        rule=RuleFault(method=method, operand="", how="missing"),
    )


def _placeholder(
    check: CheckResult, code: str, run: GroupRun, probe_index: int, defined: Definitions
) -> Diagnosis | None:
    """not-written-yet where the check's None comes from
    a function's results left at their placeholders."""
    bound = _bound_results(code, defined.placeholders)
    got = run.probes[probe_index]
    if got is None or not bound:
        return None
    functions: list[str] = []
    if got.observations is not None and check.status == "failed":
        wrong = [o.label for o in check.observations if not o.ok]
        if not wrong or any(
            not isinstance(got.observations.get(label), Nothing) or label not in bound
            for label in wrong
        ):
            return None
        functions = [bound[label] for label in wrong]
    elif got.error is not None and "NoneType" in got.error.message:
        functions = [bound[name] for name in _passed_on(code, set(bound))]
    if not functions:
        return None
    originals = list(dict.fromkeys(functions))[:4]
    names = [_shown(name) for name in originals]
    shown = (
        " and ".join(f"`{name}`" for name in names)
        if len(names) < 3
        else ", ".join(f"`{name}`" for name in names[:-1]) + f" and `{names[-1]}`"
    )
    left = ", ".join(
        f"{'it' if len(names) == 1 else name} still returns "
        f"{', '.join(_shown(n) for n in defined.placeholders[original][:6] if n)} as None"
        for name, original in zip(names, originals, strict=True)
    )
    return Diagnosis(
        kind="pattern",
        mistake="not-written-yet",
        hint=(
            f"{shown} {'is' if len(names) == 1 else 'are'} not written yet: "
            f"{left}, as the starter hands {'it' if len(names) == 1 else 'them'} "
            f"out. Write {'it' if len(names) == 1 else 'them'}, then grade again."
        ),
        evidence=f"the check read None where {shown} returns a name "
        f"{'it' if len(names) == 1 else 'each'} only ever sets to None",
        rule=RuleFault(method=names[0], operand="", how="missing") if len(names) == 1 else None,
    )


def _bound_results(code: str, placeholders: Mapping[str, tuple[str, ...]]) -> dict[str, str]:
    """The probe's names bound to a placeholder result: `dx, dw, db =
    affine_backward(...)` binds dw to affine_backward where its second result is one."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return {}
    bound: dict[str, str] = {}
    for statement in tree.body:
        if not (
            isinstance(statement, ast.Assign)
            and isinstance(statement.value, ast.Call)
            and isinstance(statement.value.func, ast.Name)
            and statement.value.func.id in placeholders
        ):
            continue
        function = statement.value.func.id
        positions = placeholders[function]
        for target in statement.targets:
            names = target.elts if isinstance(target, ast.Tuple) else [target]
            if len(names) != len(positions):
                continue
            for name, left in zip(names, positions, strict=True):
                if isinstance(name, ast.Name) and left:
                    bound[name.id] = function
    return bound


def _passed_on(code: str, names: set[str]) -> list[str]:
    """The placeholders' names the probe's code first
    gives to a call (where a None passed on raises first)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return []
    for statement in tree.body:
        given = []
        for node in ast.walk(statement):
            if isinstance(node, ast.Call):
                given += [a.id for a in node.args if isinstance(a, ast.Name) and a.id in names]
        if given:
            return list(dict.fromkeys(given))
    return []
