# exercise: accumulation
"""Mutant of accumulation.

mistake: records-the-grad-tensor
hint: w.grad is one tensor that backward() adds into in place, so a list of w.grad tensors shows only the last value, several times over: record w.grad.item() (a float) after each pass.
"""


def grads_after(w, calls, clear=False):
    grads = []
    for _ in range(calls):
        if clear:
            w.grad = None
        y = w * w
        y.backward()
        grads.append(w.grad)  # the tensor, not its value now
    return grads


def backward_twice(w, retain):
    y = w * w
    y.backward(retain_graph=retain)
    y.backward()
    return w.grad.item()
