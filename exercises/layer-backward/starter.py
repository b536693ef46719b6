# exercise: layer-backward
"""Exercise layer-backward: layers with a forward and a backward, as in CS231n's layers.py.

Each forward returns (out, cache); each backward takes dout (the loss's gradient with respect to
out) and that cache, and returns the gradients with respect to the forward's inputs. Implement the
six functions (marked TODO) with numpy.
"""

import numpy as np


def affine_forward(x, w, b):
    """out = x @ w + b, with x of shape (N, d1, ..., dk) flattened to (N, D)."""
    # TODO: flatten x to (N, D) and return (x @ w + b, cache), keeping in the cache what
    # affine_backward needs.
    raise NotImplementedError("layer-backward: implement affine_forward")


def affine_backward(dout, cache):
    """(dx, dw, db) for dout, the gradient of the loss with respect to affine_forward's output."""
    # TODO: return (dx, dw, db): dx = dout @ w.T reshaped to x's shape, dw = (flattened x).T @ dout,
    # db = dout summed over the batch.
    raise NotImplementedError("layer-backward: implement affine_backward")


def relu_forward(x):
    # TODO: return (max(x, 0), cache).
    raise NotImplementedError("layer-backward: implement relu_forward")


def relu_backward(dout, cache):
    # TODO: return dout where x > 0, and 0 elsewhere.
    raise NotImplementedError("layer-backward: implement relu_backward")


def batchnorm_forward(x, gamma, beta, bn_param):
    """Training mode: each column normalised with the batch's mean and (biased) variance, scaled, shifted."""
    # TODO: normalise each column with the batch mean and biased variance (eps = bn_param.get('eps',
    # 1e-5)), then out = gamma * xhat + beta; return (out, cache).
    raise NotImplementedError("layer-backward: implement batchnorm_forward")


def batchnorm_backward(dout, cache):
    """(dx, dgamma, dbeta); dx is the sum of three paths: through x - mu, through mu and through var."""
    # TODO: return (dx, dgamma, dbeta); dx sums the paths through x - mu, through mu and through
    # var.
    raise NotImplementedError("layer-backward: implement batchnorm_backward")
