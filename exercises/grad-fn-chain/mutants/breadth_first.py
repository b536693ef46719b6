# exercise: grad-fn-chain
"""Mutant of grad-fn-chain.

mistake: breadth-first
hint: walk depth-first: follow the first input all the way down to its leaves before you turn to the second input (a queue visits level by level; recursion or a stack goes deep first).
"""

from collections import deque


def chain(t):
    names = []
    queue = deque([t.grad_fn] if t.grad_fn is not None else [])
    while queue:
        fn = queue.popleft()
        names.append(type(fn).__name__)
        queue.extend(next_fn for next_fn, _ in fn.next_functions if next_fn is not None)
    return names
