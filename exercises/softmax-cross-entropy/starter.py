# exercise: softmax-cross-entropy
"""Exercise softmax-cross-entropy: the softmax loss and its gradient, in numpy.

Write softmax_loss(x, y) as in CS231n's layers.py: the mean cross-entropy loss of softmax(x)
against the right classes y, and dx, its gradient with respect to x, (softmax(x) - onehot(y)) / N.
Make it stable: the checks include logits in the hundreds.
"""

import numpy as np


def softmax_loss(x, y):
    """The mean cross-entropy of softmax(x) against the classes y, and its gradient with respect to x.

    x: (N, C) scores; y: (N,) classes, 0 <= y[i] < C. Returns (loss, dx), dx of x's shape.
    """
    # TODO: subtract each row's maximum, take the log-softmax as z - log(sum(exp(z))), average
    # -log_probs[i, y[i]] over the rows, and build dx = (softmax - onehot) / N.
    raise NotImplementedError("softmax-cross-entropy: implement softmax_loss")
