# exercise: accumulation
"""Mutant of accumulation.

mistake: grads-overwrite
hint: backward() adds to .grad, it does not replace it: without clearing, a second pass of w * w gives 4w (12 at w = 3), not 2w again. Clear w.grad only when clear=True.
"""


def grads_after(w, calls, clear=False):
    grads = []
    for _ in range(calls):
        w.grad = None  # cleared every time, whatever `clear` says
        y = w * w
        y.backward()
        grads.append(w.grad.item())
    return grads


def backward_twice(w, retain):
    y = w * w
    y.backward(retain_graph=retain)
    y.backward()
    return w.grad.item()
