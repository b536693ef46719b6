# exercise: control-flow
"""Mutant of control-flow.

mistake: static-graph
hint: the graph is recorded afresh on every call: test this call's x in the if each time, rather than a branch decided once (a fixed, static graph is what autograd does not have).
"""

_branch = []  # decided on the first call, then reused


def g(x):
    if not _branch:
        _branch.append(bool(x > 0))
    if _branch[0]:
        y = x ** 2
    else:
        y = -3 * x
    y.backward()
    return y.item(), x.grad.item(), type(y.grad_fn).__name__


def power_loop(x, k):
    p = x
    for _ in range(k - 1):
        p = p * x
    p.backward()
    return p.item(), x.grad.item()
