# exercise: layer-backward
"""Variant of layer-backward: batch norm as a graph of small steps, each step's gradient in backward order (the
staged form of CS231n's notebook); the affine layer with np.dot and np.prod of the feature shape."""

import numpy as np


def affine_forward(x, w, b):
    flat = x.reshape(x.shape[0], int(np.prod(x.shape[1:])))
    return np.dot(flat, w) + b, (x, w, b)


def affine_backward(dout, cache):
    x, w, b = cache
    flat = x.reshape(x.shape[0], int(np.prod(x.shape[1:])))
    return np.dot(dout, w.T).reshape(x.shape), np.dot(flat.T, dout), np.sum(dout, axis=0)


def relu_forward(x):
    out = x.copy()
    out[out < 0] = 0
    return out, x


def relu_backward(dout, cache):
    dx = dout.copy()
    dx[cache <= 0] = 0
    return dx


def batchnorm_forward(x, gamma, beta, bn_param):
    eps = bn_param.get("eps", 1e-5)
    n = x.shape[0]
    mu = np.sum(x, axis=0) / n
    xmu = x - mu
    sq = xmu**2
    var = np.sum(sq, axis=0) / n
    sqrtvar = np.sqrt(var + eps)
    ivar = 1.0 / sqrtvar
    xhat = xmu * ivar
    out = gamma * xhat + beta
    return out, (xhat, gamma, xmu, ivar, sqrtvar, var, eps)


def batchnorm_backward(dout, cache):
    xhat, gamma, xmu, ivar, sqrtvar, var, eps = cache
    n = dout.shape[0]
    dbeta = np.sum(dout, axis=0)
    dgamma = np.sum(dout * xhat, axis=0)
    dxhat = dout * gamma
    divar = np.sum(dxhat * xmu, axis=0)
    dxmu1 = dxhat * ivar
    dsqrtvar = -1.0 / sqrtvar**2 * divar
    dvar = 0.5 / np.sqrt(var + eps) * dsqrtvar
    dsq = np.ones_like(xmu) / n * dvar
    dxmu2 = 2 * xmu * dsq
    dx1 = dxmu1 + dxmu2
    dmu = -np.sum(dx1, axis=0)
    dx2 = np.ones_like(xmu) / n * dmu
    return dx1 + dx2, dgamma, dbeta
