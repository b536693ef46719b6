# exercise: grad-fn-chain
# Mistake: the walk uses a queue (breadth-first, level by level) instead of going depth-first,
# so on a graph that branches the nodes come out in the wrong order.
from collections import deque


def chain(t):
    if t.grad_fn is None:
        return []
    names = []
    queue = deque([t.grad_fn])
    while queue:
        fn = queue.popleft()
        names.append(type(fn).__name__)
        for nxt, _ in fn.next_functions:
            if nxt is not None:
                queue.append(nxt)
    return names
