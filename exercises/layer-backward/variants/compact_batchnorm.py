# exercise: layer-backward
"""Variant of layer-backward: batch norm's backward in its compact form, (gamma / (N std)) (N dxhat - sum dxhat -
xhat sum(dxhat xhat)); einsum for the affine layer's products; relu through np.where."""

import numpy as np


def affine_forward(x, w, b):
    flat = x.reshape(len(x), -1)
    return np.einsum("nd,dm->nm", flat, w) + b, (x, w)


def affine_backward(dout, cache):
    x, w = cache
    flat = x.reshape(len(x), -1)
    dx = np.einsum("nm,dm->nd", dout, w).reshape(x.shape)
    dw = np.einsum("nd,nm->dm", flat, dout)
    return dx, dw, dout.sum(axis=0)


def relu_forward(x):
    return np.where(x > 0, x, 0.0), x > 0


def relu_backward(dout, cache):
    return np.where(cache, dout, 0.0)


def batchnorm_forward(x, gamma, beta, bn_param):
    eps = bn_param.get("eps", 1e-5)
    centred = x - x.mean(axis=0)
    std = np.sqrt((centred**2).mean(axis=0) + eps)
    xhat = centred / std
    return gamma * xhat + beta, (xhat, std, gamma)


def batchnorm_backward(dout, cache):
    xhat, std, gamma = cache
    n = dout.shape[0]
    dgamma = np.sum(dout * xhat, axis=0)
    dbeta = np.sum(dout, axis=0)
    dxhat = dout * gamma
    dx = (n * dxhat - dxhat.sum(axis=0) - xhat * (dxhat * xhat).sum(axis=0)) / (n * std)
    return dx, dgamma, dbeta
