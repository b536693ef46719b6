"""Naming tensor mistakes: array facts, the reference with one rule changed, and the root of a backward chain."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from grader.cli import main
from grader.core.numeric import DEFAULT_TOLERANCE
from grader.core.values import Array, ErrorInfo, Number
from grader.judge.catalog import Catalog
from grader.judge.diagnose.hints import hint_for
from grader.judge.grading import grade_submission
from grader.judge.oracle import expected_values
from grader.judge.report import ExerciseResult
from grader.judge.tensor.tensor_patterns import HINTS, observation_pattern, summed_wrong_axes
from grader.judge.tensor.tensor_variants import matching, variant_runs
from grader.run.inputs import TensorInput, draw_inputs
from grader.run.observed import ProbeRun
from grader.run.read.load import load_submission
from grader.run.sandbox import Sandbox

TOL = DEFAULT_TOLERANCE
RNG = np.random.default_rng(3)


def array(values: np.ndarray) -> Array:
    return Array(tuple(int(n) for n in values.shape), tuple(float(v) for v in values.ravel()))


def pattern(want: np.ndarray, got: np.ndarray, sizes: tuple[int, ...] = ()) -> tuple[str, str] | None:
    return observation_pattern(array(want), array(got), sizes, TOL)


def test_a_gradient_left_in_the_output_shape_names_the_axes_to_sum() -> None:
    g = RNG.normal(size=(2, 3, 4))
    found = pattern(g.sum(axis=(0, 2)).reshape(3, 1), g)
    assert found == ("unreduced-broadcast", "has shape (2, 3, 4) where (3, 1) was expected; summed over axes 0 and 2 "
                                            "it is right")
    assert pattern(g.sum(axis=1, keepdims=True), g) == (
        "unreduced-broadcast", "has shape (2, 3, 4) where (2, 1, 4) was expected; summed over axis 1 it is right")
    # right shape in the end, wrong values: no name
    assert pattern(g.sum(axis=(0, 2)).reshape(3, 1), g * 1.5) is None


def test_size_one_axes_lost_or_added_are_told_apart() -> None:
    db = RNG.normal(size=5)
    assert pattern(db, db.reshape(1, 5))[0] == "extra-size-1-axes"  # type: ignore[index]
    assert pattern(db.reshape(5, 1), db)[0] == "keepdims-missing"  # type: ignore[index]
    # (1, 5) for (5, 1) is a transpose, not a lost axis
    assert pattern(db.reshape(5, 1), db.reshape(1, 5))[0] == "permuted-gradient"  # type: ignore[index]


def test_reshaped_and_permuted_gradients() -> None:
    x = RNG.normal(size=(2, 3, 4))
    assert pattern(x, x.reshape(4, 6))[0] == "unreshaped-gradient"  # type: ignore[index]
    assert pattern(x, x.transpose(1, 2, 0)) == ("permuted-gradient",
                                                "is the right gradient with its axes in the order (1, 2, 0)")
    square = RNG.normal(size=(4, 4))
    assert pattern(square, square.T) == ("permuted-gradient", "is the right gradient transposed")


def test_a_mean_scale_needs_the_ratio_to_be_an_axis_size_of_an_input() -> None:
    g = RNG.normal(size=(3, 5))
    assert pattern(g, g * 5, (5, 15)) == ("mean-scale", "is exactly 5 times the right value (N = 5, the size of an "
                                                        "axis averaged over)")
    assert pattern(g, g / 15, (5, 15))[0] == "mean-scale"  # type: ignore[index]
    assert pattern(g, g * 7, (5, 15)) is None  # a multiple, but of no axis here
    assert pattern(g, g * 2, (2, 5)) is None  # 2 is also a gradient counted twice: no evidence (sizes >= 3 only)
    assert observation_pattern(Number(2.0), Number(10.0), (5,), TOL) == (
        "mean-scale", "is exactly 5 times the right value (N = 5, the size of an axis averaged over)")


def test_nothing_is_named_for_unrelated_or_non_finite_values() -> None:
    g = RNG.normal(size=(3, 4))
    assert pattern(g, RNG.normal(size=(3, 4)), (3, 4, 12)) is None
    broken = g.copy()
    broken[0, 0] = np.nan
    assert pattern(g, broken, (3, 4)) is None


EXTREME = st.sampled_from([0.0, -0.0, 1.0, -2.5, 1.7e308, -1.7e308, 5e-324, float("inf"), float("nan"), 3.0])


@given(st.lists(EXTREME, min_size=6, max_size=6), st.lists(EXTREME, min_size=6, max_size=6),
       st.sampled_from([(6,), (2, 3), (3, 2), (1, 6), (6, 1)]))
def test_any_numbers_a_submission_sends_are_safe_in_the_array_patterns(want: list[float], got: list[float],
                                                                       shape: tuple[int, ...]) -> None:
    found = observation_pattern(Array((2, 3), tuple(want)), Array(shape, tuple(got)), (3, 6), TOL)
    assert found is None or isinstance(found[0], str)


def test_batch_norm_without_one_path_is_named_from_the_values(catalog: Catalog) -> None:
    exercise = catalog.load("layer-backward")
    inputs = draw_inputs(exercise, 0)
    expected = expected_values(exercise, inputs, seed=0, torch_engine=False)
    runs = variant_runs(exercise, inputs)
    index = next(i for i, p in enumerate(exercise.probes) if p.name == "batch norm backward")
    by_mistake = {variant.mistake: results for variant, results in runs}
    for mistake in ("batchnorm-mean-path-missing", "batchnorm-variance-path-missing", "batchnorm-direct-path-only"):
        student = by_mistake[mistake][index]
        found = matching(runs, index, student, expected[index], TOL)
        assert found is not None and found.mistake == mistake and found.kind == "pattern"
    right = expected[index].observations
    assert isinstance(right, dict)
    assert matching(runs, index, ProbeRun(dict(right), None), expected[index], TOL) is None


def _graded_without_mutants(catalog: Catalog, sandbox: Sandbox, exercise_id: str, source: str,
                            tmp_path: Path) -> ExerciseResult:
    exercise = dataclasses.replace(catalog.load(exercise_id), mutants=())  # the patterns alone
    path = tmp_path / "student.py"
    path.write_text(source, encoding="utf-8")
    return grade_submission(sandbox, load_submission(path), [exercise], seed=0, devices=("cpu",)).exercises[0]


def test_a_square_matmul_with_swapped_transposes_is_named_without_its_mutant(
        catalog: Catalog, sandbox: Sandbox, tmp_path: Path) -> None:
    solution = (catalog.root / "tensor-matmul" / "solution.py").read_text(encoding="utf-8")
    swapped = solution.replace("out.grad @ other.data.swapaxes(-1, -2)", "other.data.swapaxes(-1, -2) @ out.grad") \
        .replace("self.data.swapaxes(-1, -2) @ out.grad", "out.grad @ self.data.swapaxes(-1, -2)")
    assert swapped != solution
    result = _graded_without_mutants(catalog, sandbox, "tensor-matmul", swapped, tmp_path)
    checks = {c.name: c for c in result.checks}
    square = checks["square matrices"].diagnosis
    assert square is not None and square.mistake == "matmul-transposes"
    assert "a's gradient is out.grad @ b.T, not b.T @ out.grad" in square.hint
    assert "b's gradient is a.T @ out.grad, not out.grad @ a.T" in square.hint
    # the rectangular checks raise numpy's shape error: that names nothing
    rectangular = checks["rectangular matrices"]
    assert rectangular.status == "error" and (rectangular.diagnosis is None or rectangular.diagnosis.kind == "unknown")


def test_the_chain_names_a_missing_path_where_no_mutant_explains_it(
        catalog: Catalog, sandbox: Sandbox, tmp_path: Path) -> None:
    solution = (catalog.root / "manual-backprop" / "solution.py").read_text(encoding="utf-8")
    one_path = solution.replace("    dcounts += np.ones_like(counts) * dcounts_sum\n", "")
    assert one_path != solution
    result = _graded_without_mutants(catalog, sandbox, "manual-backprop", one_path, tmp_path)
    diagnoses = {c.name: c.diagnosis for c in result.checks if c.status == "failed"}
    root = diagnoses.pop("dcounts")
    assert root is not None and root.mistake == "missing-path" and "the path through counts_sum" in root.hint
    assert root.hint.startswith("The root: dcounts is the first wrong gradient in backward order")
    assert diagnoses and all(d is not None and d.mistake == "follows-from-earlier" and "because dcounts is" in d.hint
                             for d in diagnoses.values())


def test_two_independent_wrong_lines_are_two_roots(catalog: Catalog, sandbox: Sandbox, tmp_path: Path) -> None:
    solution = (catalog.root / "manual-backprop" / "solution.py").read_text(encoding="utf-8")
    two = solution.replace("    dprobs = dlogprobs / probs\n", "    dprobs = dlogprobs * probs\n") \
        .replace("    dhpreact = (1.0 - h**2) * dh\n", "    dhpreact = (1.0 + h**2) * dh\n")
    result = _graded_without_mutants(catalog, sandbox, "manual-backprop", two, tmp_path)
    mistakes = {c.name: c.diagnosis.mistake for c in result.checks if c.status == "failed" and c.diagnosis}
    assert "dlogprobs" not in mistakes and mistakes["dprobs"] == "root-gradient"
    assert mistakes["dhpreact"] == "root-gradient" and mistakes["dh"] == "follows-from-earlier"
    second = next(c.diagnosis for c in result.checks if c.name == "dhpreact")
    assert second is not None and second.hint.startswith("A root of its own: dhpreact's own line is wrong too.")


def _named(result: ExerciseResult) -> dict[str, str]:
    return {c.name: c.diagnosis.mistake for c in result.checks
            if c.status in ("failed", "error") and c.diagnosis is not None and c.diagnosis.kind != "unknown"}


_PROBS = ("    log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))\n",
          "    log_probs = np.log(np.exp(shifted) / np.sum(np.exp(shifted), axis=1, keepdims=True))\n")


def test_a_softmax_shifted_by_the_batch_maximum_is_named_where_its_nans_are_and_not_from_a_nan_loss(
        catalog: Catalog, sandbox: Sandbox, tmp_path: Path) -> None:
    solution = (catalog.root / "softmax-cross-entropy" / "solution.py").read_text(encoding="utf-8")
    batch = solution.replace("np.max(x, axis=1, keepdims=True)", "np.max(x)").replace(*_PROBS)
    named = _named(_graded_without_mutants(catalog, sandbox, "softmax-cross-entropy", batch, tmp_path))
    # rows far below the batch's maximum go 0/0: nan there, and nowhere an overflow
    assert named.get("large logits, the gradient") == "softmax-batch-max-shift"
    assert "softmax-overflow" not in named.values()
    assert "large logits, the loss" not in named  # a nan loss says something went unstable, not what
    assert named.get("a right class far below the others") == "log-of-softmax-underflow"
    unshifted = solution.replace("x - np.max(x, axis=1, keepdims=True)", "x").replace(*_PROBS)
    result = _graded_without_mutants(catalog, sandbox, "softmax-cross-entropy", unshifted, tmp_path)
    named = _named(result)
    assert named.get("large logits, the gradient") == "softmax-overflow" and "large logits, the loss" not in named
    underflow = next(c.diagnosis for c in result.checks if c.name == "a right class far below the others")
    assert underflow is not None and underflow.mistake == "log-of-softmax-underflow"
    assert "shift is right" not in underflow.hint  # this file never shifts


def test_batch_norm_eps_misplaced_is_named_where_each_check_shows_it(
        catalog: Catalog, sandbox: Sandbox, tmp_path: Path) -> None:
    solution = (catalog.root / "layer-backward" / "solution.py").read_text(encoding="utf-8")
    outside = solution.replace("xhat = (x - mu) / np.sqrt(var + eps)", "xhat = (x - mu) / (np.sqrt(var) + eps)")
    result = _graded_without_mutants(catalog, sandbox, "layer-backward", outside, tmp_path)
    diagnoses = {c.name: c.diagnosis for c in result.checks if c.status == "failed"}
    forward = diagnoses["batch norm forward"]
    assert forward is not None and forward.mistake == "batchnorm-eps"
    assert "batchnorm_forward divides by sqrt(var) + eps" in forward.hint and "dx divides" not in forward.hint
    # the backward's dx is right for eps inside; its dgamma reuses the forward's xhat, eps outside
    backward = diagnoses["batch norm backward"]
    assert backward is not None and backward.mistake == "batchnorm-eps" and "dgamma" in backward.hint
    dgamma_only = solution.replace("dgamma = (dout * xhat).sum(axis=0)",
                                   "dgamma = (dout * (x - mu) / np.sqrt(var)).sum(axis=0)")
    named = _named(_graded_without_mutants(catalog, sandbox, "layer-backward", dgamma_only, tmp_path))
    assert set(named) == {"batch norm backward", "batch norm with another eps", "the layers stacked"}
    assert set(named.values()) == {"batchnorm-eps"}


def test_numpy_dot_t_on_a_batch_is_named_from_its_very_error(
        catalog: Catalog, sandbox: Sandbox, tmp_path: Path) -> None:
    solution = (catalog.root / "tensor-matmul" / "solution.py").read_text(encoding="utf-8")
    dot_t = solution.replace("self.data.swapaxes(-1, -2) @ out.grad", "self.data.T @ out.grad")
    result = _graded_without_mutants(catalog, sandbox, "tensor-matmul", dot_t, tmp_path)
    batched = next(c for c in result.checks if c.name == "a batch times one matrix")
    assert batched.status == "error" and batched.diagnosis is not None
    assert batched.diagnosis.mistake == "matmul-transposes" and "reverses every axis" in batched.diagnosis.hint
    assert all(c.status == "passed" for c in result.checks if c.name in ("rectangular matrices", "square matrices"))


def test_a_gradient_summed_over_the_wrong_axis_names_both_axes() -> None:
    dout = RNG.normal(size=(4, 5))
    inputs = {"dout": TensorInput((4, 5), tuple(float(v) for v in dout.ravel()))}
    found = summed_wrong_axes(array(dout.sum(axis=0)), array(dout.sum(axis=1)), inputs, TOL)
    assert found == ("summed-wrong-axis", "is dout summed over axis 1, where the right one is dout summed over axis 0")
    assert summed_wrong_axes(array(dout.sum(axis=0)), array(dout.sum(axis=0) * 2), inputs, TOL) is None


def test_a_numpy_exercise_reads_no_torch_advice() -> None:
    error = ErrorInfo("TypeError", "unsupported operand type(s) for *: 'NoneType' and 'float'")
    advice = hint_for(error, "tensor")
    assert advice is not None and "no_grad" not in advice and "leaf" not in advice
    assert "no_grad" in (hint_for(error, "torch") or "")


def test_one_wrong_check_that_is_a_ratio_names_no_ratio(catalog: Catalog, sandbox: Sandbox, tmp_path: Path) -> None:
    solution = (catalog.root / "tensor-elementwise" / "solution.py").read_text(encoding="utf-8")
    # add's gradients doubled, and a division that raises: every other check errs, so add's is the one number
    doubled = solution.replace("            self._accumulate(out.grad)\n            other._accumulate(out.grad)\n",
                               "            self._accumulate(2 * out.grad)\n"
                               "            other._accumulate(2 * out.grad)\n", 1) \
        .replace("    def __truediv__(self, other):  # self / other\n",
                 "    def __truediv__(self, other):  # self / other\n        raise RuntimeError('later')\n")
    result = _graded_without_mutants(catalog, sandbox, "tensor-elementwise", doubled, tmp_path)
    assert [c.name for c in result.checks if c.status == "failed"] == ["add"]
    assert "add" not in _named(result)  # twice the right answer, on one check alone: chance, not evidence


def test_a_hidden_check_keeps_the_shapes_of_a_forged_numpy_message_out_of_its_hint(tmp_path: Path) -> None:
    sample = Path(__file__).resolve().parent.parent / "submissions" / "hostile" / "tensor_shapes_quote_hidden_inputs.py"
    out = tmp_path / "report.json"
    assert main([str(sample), "--format", "json", "--output", str(out)]) == 1
    hidden = next(c for e in json.loads(out.read_text(encoding="utf-8"))["exercises"] for c in e["checks"]
                  if c["visibility"] == "hidden")
    assert hidden["diagnosis"]["hint"] == HINTS["unreduced-broadcast"]
    assert "broadcast shape (" not in json.dumps(hidden)  # the message's shapes: its source line is the student's own


def test_float32_values_are_named_as_float32_only_when_every_element_is_one() -> None:
    g = RNG.normal(size=(3, 4))
    assert pattern(g, g.astype(np.float32).astype(np.float64))[0] == "float32-precision"  # type: ignore[index]
    assert pattern(g, g * (1 + 1e-5)) is None  # as close, but float64 values: no evidence of float32
