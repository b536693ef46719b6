# exercise: accumulation
"""Exercise accumulation: gradients add up across backward() calls (solution)."""


def grads_after(w, calls, clear=False):
    """w.grad after each of `calls` backward passes of a freshly built y = w * w.

    w is a one-number leaf tensor with requires_grad=True. Each pass builds y = w * w anew,
    calls y.backward() and records w.grad.item(). Nothing is cleared unless clear=True: the
    passes add up, on top of whatever w.grad held before the call. With clear=True, w.grad is
    cleared (set to None) before each pass, so every entry is 2w.
    """
    grads = []
    for _ in range(calls):
        if clear:
            w.grad = None
        y = w * w
        y.backward()
        grads.append(w.grad.item())
    return grads


def backward_twice(w, retain):
    """Build y = w * w once and call y.backward() twice, the first time with retain_graph=retain.

    Without retain_graph the first backward() frees the graph's saved tensors, so the second
    raises RuntimeError ("Trying to backward through the graph a second time"). With it, both
    passes add up and w.grad.item() is returned (4w when w.grad started empty).
    """
    y = w * w
    y.backward(retain_graph=retain)
    y.backward()
    return w.grad.item()
