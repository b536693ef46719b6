# exercise: accumulation
# Builds y = w * w once, before the loop, and calls backward() on it every pass: the first
# backward() frees the graph, so the second pass raises.


def grads_after(w, calls, clear=False):
    y = w * w
    grads = []
    for _ in range(calls):
        if clear:
            w.grad = None
        y.backward()
        grads.append(w.grad.item())
    return grads


def backward_twice(w, retain):
    y = w * w
    y.backward(retain_graph=retain)
    y.backward()
    return w.grad.item()
