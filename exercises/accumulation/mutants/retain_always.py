# exercise: accumulation
"""Mutant of accumulation.

mistake: retain-graph-always
hint: retain_graph=True silences the error, but the lesson is that without it the graph is freed after backward(): pass retain_graph=retain, and let the second backward() raise when retain is False.
"""


def grads_after(w, calls, clear=False):
    grads = []
    for _ in range(calls):
        if clear:
            w.grad = None
        y = w * w
        y.backward()
        grads.append(w.grad.item())
    return grads


def backward_twice(w, retain):
    y = w * w
    y.backward(retain_graph=True)  # always, "to silence the error"
    y.backward()
    return w.grad.item()
