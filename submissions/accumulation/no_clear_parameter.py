# exercise: accumulation
# Leaves out the clear parameter (the student clears by hand outside), so every call with
# clear=True fails with a TypeError.


def grads_after(w, calls):
    grads = []
    for _ in range(calls):
        (w * w).backward()
        grads.append(w.grad.item())
    return grads


def backward_twice(w, retain):
    y = w * w
    y.backward(retain_graph=retain)
    y.backward()
    return w.grad.item()
