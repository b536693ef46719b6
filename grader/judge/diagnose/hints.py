"""Advice for errors whose message is stable and whose cause is known: torch's own messages for
an in-place change of a leaf, a backward through a freed graph, a non-scalar output, and the like.

Errors whose meaning depends on what the submission defines (a missing operator) are read in
grader.judge.diagnose.named_errors, against its syntax tree.
"""

from __future__ import annotations

from grader.core.engines import KINDS, Engine
from grader.core.values import ErrorInfo

#: (id, exception type, message fragment, advice); the first match wins
KNOWN_ERRORS: tuple[tuple[str, str, str, str], ...] = (
    (
        "non-scalar-backward",
        "RuntimeError",
        "grad can be implicitly created only for scalar outputs",
        "backward() needs a single number: reduce the loss with .sum() or .mean() first.",
    ),
    (
        "leaf-in-place",
        "RuntimeError",
        "a leaf Variable that requires grad is being used in an in-place operation",
        "an update of weights belongs inside `with torch.no_grad():`; in a forward pass, "
        "compute out of place (p = p * x, not p *= x), so that the graph keeps the leaf.",
    ),
    (
        "leaf-view-in-place",
        "RuntimeError",
        "a view of a leaf Variable that requires grad is being used in an in-place operation",
        "change a leaf's values inside `with torch.no_grad():`, or before requires_grad_().",
    ),
    (
        "numpy-needs-detach",
        "RuntimeError",
        "Can't call numpy() on Tensor that requires grad",
        "cut the tensor from the graph first: t.detach().numpy().",
    ),
    (
        "numpy-needs-cpu",
        "TypeError",
        "can't convert cuda",
        "a CUDA tensor must come to the CPU before numpy: t.detach().cpu().numpy().",
    ),
    (
        "mismatch-grad-output",
        "RuntimeError",
        "Mismatch in shape: grad_output",
        "a gradient given to backward() must have the output's shape: "
        "torch.ones_like(out), or reduce the output to a single number first.",
    ),
    (
        "item-before-backward",
        "AttributeError",
        "'float' object has no attribute 'backward'",
        ".item() turns a tensor into a plain number, which has no "
        "graph: call backward() on the tensor, and .item() afterwards.",
    ),
    (
        "freed-graph",
        "RuntimeError",
        "Trying to backward through the graph a second time",
        "run the forward pass again before each backward(), "
        "or pass retain_graph=True to the first one.",
    ),
    (
        "not-connected-to-graph",
        "RuntimeError",
        "element 0 of tensors does not require grad and does not have a grad_fn",
        "the result is not connected to anything that requires grad: "
        "was it computed under torch.no_grad(), from detached tensors, "
        "or from a weight rebound with `w = w - ...` inside no_grad?",
    ),
    (
        "modified-in-place",
        "RuntimeError",
        "has been modified by an inplace operation",
        "a tensor that backward() needs was changed in place; compute on a copy, or out of place.",
    ),
    (
        "wrong-gradient-count",
        "RuntimeError",
        "returned an incorrect number of gradients",
        "backward must return one gradient per input of "
        "forward (None for inputs that are not tensors).",
    ),
    (
        "wrong-gradient-shape",
        "RuntimeError",
        "returned an invalid gradient at index",
        "each gradient backward returns must have the shape of the matching input of forward.",
    ),
    (
        "none-value",
        "AttributeError",
        "'NoneType' object has no attribute",
        "something is None: often a .grad read before backward(), "
        "or of a tensor that is not a leaf that requires grad.",
    ),
    (
        "none-operand",
        "TypeError",
        "'NoneType'",
        "a .grad is None: after `w = w - lr * w.grad` outside torch.no_grad(), w is no longer "
        "a leaf, so its .grad stays None; update in place inside `with torch.no_grad():`.",
    ),
    (
        "nested-too-deeply",
        "RecursionError",
        "during compilation",
        "one expression is nested too deeply for Python to compile (thousands of terms "
        "or brackets in one statement): split it into several, or build it in a loop.",
    ),
    (
        "endless-recursion",
        "RecursionError",
        "maximum recursion depth exceeded",
        "a function calls itself without end: look for a method that calls itself "
        "(an __radd__ that computes other + self, a backward that never stops).",
    ),
)


#: the advice that holds in an engine exercise too;
#: the rest is about torch's own messages and habits
ANY_ENGINE = frozenset({"endless-recursion", "nested-too-deeply"})
#: and what holds for a numpy tensor exercise too, once put in its words (TENSOR_ADVICE)
TENSOR_TOO = frozenset({"none-value", "none-operand"})


#: the advice of TENSOR_TOO in a numpy exercise's words:
#: no torch there, so nothing of no_grad or leaves
TENSOR_ADVICE = {
    "none-value": "something is None where an array was expected: often a function "
    "that does not return its result yet (a TODO left as `out = None`), "
    "a missing return, or a .grad read before backward() reached it.",
    "none-operand": "an operand is None where an array was expected: often a function that does "
    "not return its result yet, a missing return, or a .grad that no backward() has filled.",
}


def known_error(error: ErrorInfo, engine: Engine = "torch") -> tuple[str, str] | None:
    """The id and the advice for an error whose cause is known, if this is one.

    An engine exercise gets only advice that is not about torch: "'NoneType'
    object has no attribute" there is a node's None, not a .grad read before
    backward(); a numpy exercise gets it in numpy's words.
    """
    advice = KINDS[engine].advice
    for ident, type_name, fragment, text in KNOWN_ERRORS:
        if error.type_name != type_name or fragment not in error.message:
            continue
        if advice == "torch" or ident in ANY_ENGINE:
            return ident, text
        if advice == "numpy" and ident in TENSOR_TOO:
            return ident, TENSOR_ADVICE.get(ident, text)
    return None


def hint_for(error: ErrorInfo, engine: Engine = "torch") -> str | None:
    known = known_error(error, engine)
    return None if known is None else known[1]
