"""Mutant of simple-ml.

mistake: true-logit-added
hint: The loss subtracts the true class's logit from log(sum(exp(z))): log_sum_exp - z_y, not + z_y.
"""


def softmax_loss(Z, y_one_hot):
    batch = Z.shape[0]
    log_total = ndl.log(ndl.summation(ndl.exp(Z), axes=(1,)))
    picked = ndl.summation(Z * y_one_hot, axes=(1,))
    return ndl.summation(log_total + picked) / batch
