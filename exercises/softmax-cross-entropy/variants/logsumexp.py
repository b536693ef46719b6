# exercise: softmax-cross-entropy
"""Variant of softmax-cross-entropy: the log-softmax through a log-sum-exp of its own (the row's maximum added back),
the loss picked with take_along_axis, and the gradient as the probabilities less a one-hot matrix."""

import numpy as np


def _logsumexp(x):
    m = x.max(axis=1, keepdims=True)
    return m + np.log(np.exp(x - m).sum(axis=1, keepdims=True))


def softmax_loss(x, y):
    n, c = x.shape
    log_probs = x - _logsumexp(x)
    loss = -np.take_along_axis(log_probs, y.reshape(-1, 1), axis=1).mean()
    onehot = np.eye(c)[y]
    return loss, (np.exp(log_probs) - onehot) / n
