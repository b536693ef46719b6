# exercise: grad-fn-chain
"""Exercise grad-fn-chain: walk the backward graph autograd records (solution)."""


def chain(t):
    """The short names of the backward graph's nodes, met depth-first from t.grad_fn.

    Each node is listed when it is met, then its next_functions are walked in order (first
    input first); None entries (inputs that need no gradient) are skipped; a node reached twice
    is listed twice. A leaf (t.grad_fn is None) gives [].
    """
    names = []

    def walk(fn):
        names.append(type(fn).__name__)
        for next_fn, _ in fn.next_functions:
            if next_fn is not None:
                walk(next_fn)

    if t.grad_fn is not None:
        walk(t.grad_fn)
    return names
