# exercise: accumulation
"""Mutant of accumulation.

mistake: clears-once
hint: clear inside the loop, before every pass, as a training loop calls zero_grad() every step: clearing once before the loop still lets the passes add up.
"""


def grads_after(w, calls, clear=False):
    grads = []
    if clear:
        w.grad = None  # once, before the loop
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
