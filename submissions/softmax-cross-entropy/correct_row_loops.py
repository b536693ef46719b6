# exercise: softmax-cross-entropy
"""A correct softmax loss written with a loop over the rows, as a first CS231n attempt often is."""

import math

import numpy as np


def softmax_loss(x, y):
    n, c = x.shape
    loss = 0.0
    dx = np.zeros_like(x)
    for i in range(n):
        top = max(x[i])
        exps = [math.exp(v - top) for v in x[i]]
        total = sum(exps)
        loss += -((x[i, y[i]] - top) - math.log(total))
        for j in range(c):
            dx[i, j] = exps[j] / total - (1.0 if j == y[i] else 0.0)
    return loss / n, dx / n
