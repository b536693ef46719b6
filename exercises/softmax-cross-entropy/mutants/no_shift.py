# exercise: softmax-cross-entropy
"""Mutant of softmax-cross-entropy.

mistake: softmax-overflow
hint: exp overflows for large logits (above about 709), giving inf and then nan: subtract each row's
maximum before exp; the softmax does not change.
"""

import numpy as np


def softmax_loss(x, y):
    """The mean cross-entropy of softmax(x) against the classes y, and its gradient with respect to x.

    x: (N, C) scores; y: (N,) classes, 0 <= y[i] < C. Returns (loss, dx), dx of x's shape.
    """
    n = x.shape[0]
    shifted = x
    log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    loss = -np.sum(log_probs[np.arange(n), y]) / n
    dx = np.exp(log_probs)
    dx[np.arange(n), y] -= 1
    dx /= n
    return loss, dx
