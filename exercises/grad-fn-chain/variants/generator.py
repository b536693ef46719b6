# exercise: grad-fn-chain
"""Variant of grad-fn-chain: a recursive generator yields each node's name, then its inputs' in order."""


def _walk(fn):
    yield type(fn).__name__
    for next_fn, _ in fn.next_functions:
        if next_fn is not None:
            yield from _walk(next_fn)


def chain(t):
    return [] if t.grad_fn is None else list(_walk(t.grad_fn))
