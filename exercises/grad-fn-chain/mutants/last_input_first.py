# exercise: grad-fn-chain
"""Mutant of grad-fn-chain.

mistake: last-input-first
hint: first input first: with a stack, push a node's next_functions in reverse order, so that the first input is popped (and walked) first.
"""


def chain(t):
    names = []
    stack = [t.grad_fn] if t.grad_fn is not None else []
    while stack:
        fn = stack.pop()
        names.append(type(fn).__name__)
        stack.extend(next_fn for next_fn, _ in fn.next_functions if next_fn is not None)
    return names
