# exercise: grad-fn-chain
"""Mutant of grad-fn-chain.

mistake: long-accumulategrad-name
hint: fn.name() calls the bucket "torch::autograd::AccumulateGrad"; the lessons, and this exercise, use the short name "AccumulateGrad" that type(fn).__name__ gives.
"""


def chain(t):
    names = []

    def walk(fn):
        names.append(fn.name())
        for next_fn, _ in fn.next_functions:
            if next_fn is not None:
                walk(next_fn)

    if t.grad_fn is not None:
        walk(t.grad_fn)
    return names
