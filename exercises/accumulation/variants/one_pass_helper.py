# exercise: accumulation
"""Variant of accumulation: one pass in a helper of its own, torch.mul for the product, and a list comprehension
for the passes."""

import torch


def _one_pass(w, clear):
    if clear:
        w.grad = None
    torch.mul(w, w).backward()
    return w.grad.item()


def grads_after(w, calls, clear=False):
    return [_one_pass(w, clear) for _ in range(calls)]


def backward_twice(w, retain):
    y = torch.mul(w, w)
    for keep in (retain, False):
        y.backward(retain_graph=keep)
    return w.grad.item()
