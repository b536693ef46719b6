# exercise: accumulation
# Mistake (partial): with clear=True the student sets w.grad = None once, before the loop,
# instead of before every pass, so the passes still add up (2w, 4w, ...). Without clear the
# function is right.


def grads_after(w, calls, clear=False):
    if clear:
        w.grad = None  # start from a clean bucket
    grads = []
    for _ in range(calls):
        y = w * w
        y.backward()
        grads.append(w.grad.item())
    return grads


def backward_twice(w, retain):
    y = w * w
    y.backward(retain_graph=retain)
    y.backward()
    return w.grad.item()
