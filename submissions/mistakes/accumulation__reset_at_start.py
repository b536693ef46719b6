# exercise: accumulation
# Mistake: grads_after zeroes w.grad at the start of every call "to be safe", so a second call
# does not add on top of what the first call left in w.grad (the bucket is emptied at the
# wrong time: only clear=True should clear anything).
import torch


def grads_after(w, calls, clear=False):
    if w.grad is not None:
        w.grad.zero_()
    results = []
    for _ in range(calls):
        if clear and w.grad is not None:
            w.grad.zero_()
        y = w * w
        y.backward()
        results.append(w.grad.item())
    return results


def backward_twice(w, retain):
    y = w * w
    y.backward(retain_graph=retain)
    y.backward()
    return w.grad.item()
