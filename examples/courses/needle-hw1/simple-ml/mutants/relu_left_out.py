"""Mutant of simple-ml.

mistake: hidden-relu-left-out
hint: The network's logits are relu(X W1) W2: apply ReLU to the hidden layer before the second product.
"""


def nn_epoch(X, y, W1, W2, lr=0.1, batch=100):
    classes = W2.shape[1]
    for start in range(0, X.shape[0], batch):
        inputs = ndl.Tensor(X[start:start + batch], requires_grad=False)
        labels = y[start:start + batch]
        one_hot = np.zeros((labels.shape[0], classes))
        one_hot[np.arange(labels.shape[0]), labels] = 1
        loss = softmax_loss((inputs @ W1) @ W2, ndl.Tensor(one_hot, requires_grad=False))
        loss.backward()
        W1 = ndl.Tensor(W1.realize_cached_data() - lr * W1.grad.realize_cached_data())
        W2 = ndl.Tensor(W2.realize_cached_data() - lr * W2.grad.realize_cached_data())
    return W1, W2
