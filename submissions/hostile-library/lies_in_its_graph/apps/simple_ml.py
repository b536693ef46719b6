"""The homework's last questions: a softmax loss and an epoch of SGD of a two-layer network, in needle."""
import numpy as np

import needle as ndl


def softmax_loss(Z, y_one_hot):
    """The mean over the batch of log(sum(exp(z))) - z_y, for logits Z and one-hot labels (both Tensors)."""
    batch = Z.shape[0]
    log_total = ndl.log(ndl.summation(ndl.exp(Z), axes=(1,)))
    picked = ndl.summation(Z * y_one_hot, axes=(1,))
    return ndl.summation(log_total - picked) / batch


def nn_epoch(X, y, W1, W2, lr=0.1, batch=100):
    """One pass over (X, y) in minibatches: logits relu(X W1) W2, softmax loss, a step of SGD on W1 and W2."""
    classes = W2.shape[1]
    for start in range(0, X.shape[0], batch):
        inputs = ndl.Tensor(X[start:start + batch], requires_grad=False)
        labels = y[start:start + batch]
        one_hot = np.zeros((labels.shape[0], classes))
        one_hot[np.arange(labels.shape[0]), labels] = 1
        loss = softmax_loss(ndl.relu(inputs @ W1) @ W2, ndl.Tensor(one_hot, requires_grad=False))
        loss.backward()
        W1 = ndl.Tensor(W1.realize_cached_data() - lr * W1.grad.realize_cached_data())
        W2 = ndl.Tensor(W2.realize_cached_data() - lr * W2.grad.realize_cached_data())
    return W1, W2
