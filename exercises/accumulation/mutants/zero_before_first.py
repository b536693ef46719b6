# exercise: accumulation
"""Mutant of accumulation.

mistake: zero-before-first-backward
hint: w.grad is None until the first backward(), so w.grad.zero_() fails there: set w.grad = None to clear, or zero it only when it is not None.
"""


def grads_after(w, calls, clear=False):
    grads = []
    for _ in range(calls):
        if clear:
            w.grad.zero_()
        y = w * w
        y.backward()
        grads.append(w.grad.item())
    return grads


def backward_twice(w, retain):
    y = w * w
    y.backward(retain_graph=retain)
    y.backward()
    return w.grad.item()
