# exercise: softmax-cross-entropy
"""Mutant of softmax-cross-entropy.

mistake: gradient-missing-n
hint: the loss is a mean over N rows, so its gradient is (softmax - onehot) / N: the division by N
is missing.
"""

import numpy as np


def softmax_loss(x, y):
    """The mean cross-entropy of softmax(x) against the classes y, and its gradient with respect to x.

    x: (N, C) scores; y: (N,) classes, 0 <= y[i] < C. Returns (loss, dx), dx of x's shape.
    """
    n = x.shape[0]
    shifted = x - np.max(x, axis=1, keepdims=True)  # softmax is unchanged, and exp never overflows
    log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    loss = -np.sum(log_probs[np.arange(n), y]) / n
    dx = np.exp(log_probs)
    dx[np.arange(n), y] -= 1
    return loss, dx
