"""The homework's last questions: a softmax loss and an epoch of SGD of a two-layer network, in needle."""
import numpy as np

import needle as ndl


def softmax_loss(Z, y_one_hot):
    """The mean over the batch of log(sum(exp(z))) - z_y, for logits Z and one-hot labels (both Tensors)."""
    ### BEGIN YOUR SOLUTION
    raise NotImplementedError()
    ### END YOUR SOLUTION


def nn_epoch(X, y, W1, W2, lr=0.1, batch=100):
    """One pass over (X, y) in minibatches: logits relu(X W1) W2, softmax loss, a step of SGD on W1 and W2."""
    ### BEGIN YOUR SOLUTION
    raise NotImplementedError()
    ### END YOUR SOLUTION
