# exercise: softmax-cross-entropy
"""Mutant of softmax-cross-entropy.

mistake: log-of-softmax-underflow
hint: the log of a probability that underflowed to 0 is -inf: take the log-softmax directly,
z - log(sum(exp(z))) with z = x - max(x) in each row, rather than the log of the softmax.
"""

import numpy as np


def softmax_loss(x, y):
    """The mean cross-entropy of softmax(x) against the classes y, and its gradient with respect to x.

    x: (N, C) scores; y: (N,) classes, 0 <= y[i] < C. Returns (loss, dx), dx of x's shape.
    """
    n = x.shape[0]
    shifted = x - np.max(x, axis=1, keepdims=True)  # softmax is unchanged, and exp never overflows
    probs = np.exp(shifted) / np.sum(np.exp(shifted), axis=1, keepdims=True)
    log_probs = np.log(probs)
    loss = -np.sum(log_probs[np.arange(n), y]) / n
    dx = np.exp(log_probs)
    dx[np.arange(n), y] -= 1
    dx /= n
    return loss, dx
