# exercise: accumulation
# Starts every call from a clean slate (w.grad = None at the top), so a second call forgets
# what the first one left in w.grad; right everywhere else.


def grads_after(w, calls, clear=False):
    w.grad = None
    out = []
    for _ in range(calls):
        if clear:
            w.grad = None
        (w * w).backward()
        out.append(w.grad.item())
    return out


def backward_twice(w, retain):
    y = w * w
    y.backward(retain_graph=retain)
    y.backward()
    return w.grad.item()
