# exercise: grad-fn-chain
"""Mutant of grad-fn-chain.

mistake: no-accumulategrad
hint: the walk goes on past the last operation: each leaf that requires grad ends in an AccumulateGrad node (its .grad bucket), and it belongs in the list.
"""


def chain(t):
    names = []

    def walk(fn):
        name = type(fn).__name__
        if "Backward" in name:  # only the operations
            names.append(name)
        for next_fn, _ in fn.next_functions:
            if next_fn is not None:
                walk(next_fn)

    if t.grad_fn is not None:
        walk(t.grad_fn)
    return names
