# exercise: grad-fn-chain
"""Variant of grad-fn-chain: the depth-first walk with a stack of its own (inputs pushed in reverse, so the first
input is walked first), no recursion."""


def chain(t):
    names, stack = [], [t.grad_fn] if t.grad_fn is not None else []
    while stack:
        fn = stack.pop()
        names.append(type(fn).__name__)
        stack.extend(next_fn for next_fn, _ in reversed(fn.next_functions) if next_fn is not None)
    return names
