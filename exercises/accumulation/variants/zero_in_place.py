# exercise: accumulation
"""Variant of accumulation: clears with w.grad.zero_() where there is a gradient (the lesson's in-place way), builds
y as w ** 2, and reads w.grad with float()."""


def grads_after(w, calls, clear=False):
    found = []
    for _ in range(calls):
        if clear and w.grad is not None:
            w.grad.zero_()
        (w**2).backward()
        found.append(float(w.grad))
    return found


def backward_twice(w, retain):
    y = w**2
    y.backward(retain_graph=retain)
    y.backward()
    return float(w.grad)
