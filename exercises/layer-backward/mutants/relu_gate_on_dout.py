# exercise: layer-backward
"""Mutant of layer-backward.

mistake: relu-gate-on-dout
hint: relu's gate is its input: dout passes where x > 0, whatever the sign of dout.
"""

import numpy as np


def affine_forward(x, w, b):
    """out = x @ w + b, with x of shape (N, d1, ..., dk) flattened to (N, D)."""
    out = x.reshape(x.shape[0], -1) @ w + b
    return out, (x, w, b)


def affine_backward(dout, cache):
    """(dx, dw, db) for dout, the gradient of the loss with respect to affine_forward's output."""
    x, w, b = cache
    dx = (dout @ w.T).reshape(x.shape)
    dw = x.reshape(x.shape[0], -1).T @ dout
    db = dout.sum(axis=0)
    return dx, dw, db


def relu_forward(x):
    return np.maximum(x, 0), x


def relu_backward(dout, cache):
    x = cache
    return dout * (dout > 0)


def batchnorm_forward(x, gamma, beta, bn_param):
    """Training mode: each column normalised with the batch's mean and (biased) variance, scaled, shifted."""
    eps = bn_param.get("eps", 1e-5)
    mu = x.mean(axis=0)
    var = x.var(axis=0)
    xhat = (x - mu) / np.sqrt(var + eps)
    out = gamma * xhat + beta
    return out, (x, xhat, mu, var, gamma, eps)


def batchnorm_backward(dout, cache):
    """(dx, dgamma, dbeta); dx is the sum of three paths: through x - mu, through mu and through var."""
    x, xhat, mu, var, gamma, eps = cache
    n = x.shape[0]
    std = np.sqrt(var + eps)
    dbeta = dout.sum(axis=0)
    dgamma = (dout * xhat).sum(axis=0)
    dxhat = dout * gamma
    dvar = np.sum(dxhat * (x - mu), axis=0) * -0.5 * std**-3
    dmu = np.sum(-dxhat / std, axis=0) + dvar * np.mean(-2 * (x - mu), axis=0)
    dx = dxhat / std + dvar * 2 * (x - mu) / n + dmu / n
    return dx, dgamma, dbeta
