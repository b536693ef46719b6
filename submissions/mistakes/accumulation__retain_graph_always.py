# exercise: accumulation
# Mistake (partial): backward_twice always passes retain_graph=True "so the second backward
# does not crash", ignoring retain, so backward_twice(w, False) never raises the
# "backward through the graph a second time" error. grads_after is right.


def grads_after(w, calls, clear=False):
    out = []
    for i in range(calls):
        if clear:
            w.grad = None
        (w * w).backward()
        out.append(w.grad.item())
    return out


def backward_twice(w, retain):
    y = w * w
    y.backward(retain_graph=True)
    y.backward()
    return w.grad.item()
