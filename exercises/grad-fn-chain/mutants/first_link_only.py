# exercise: grad-fn-chain
"""Mutant of grad-fn-chain.

mistake: first-input-only
hint: an operation with two inputs has two entries in next_functions; walk every one that is not None, not just next_functions[0], or whole branches (and leaves such as w2) go missing.
"""


def chain(t):
    names = []
    fn = t.grad_fn
    while fn is not None:
        names.append(type(fn).__name__)
        fn = fn.next_functions[0][0] if fn.next_functions else None
    return names
