# exercise: manual-backprop
"""Mutant of manual-backprop.

mistake: batchnorm-variance-path-missing
hint: bndiff feeds bnraw and bndiff2 (the variance): dbndiff is the sum of both paths, bnvar_inv *
dbnraw plus 2 * bndiff * dbndiff2.
"""

import numpy as np


def forward(C, W1, b1, bngain, bnbias, W2, b2, Xb, Yb):
    """The lecture's forward pass, one small step at a time; every intermediate, by name, and the loss."""
    n = Xb.shape[0]
    emb = C[Xb]  # (n, 3, 2): one embedding per character
    embcat = emb.reshape(n, -1)  # (n, 6)
    # linear layer 1
    hprebn = embcat @ W1 + b1
    # batch norm
    bnmeani = 1 / n * hprebn.sum(0, keepdims=True)
    bndiff = hprebn - bnmeani
    bndiff2 = bndiff**2
    bnvar = 1 / (n - 1) * bndiff2.sum(0, keepdims=True)  # Bessel's correction: n - 1
    bnvar_inv = (bnvar + 1e-5) ** -0.5
    bnraw = bndiff * bnvar_inv
    hpreact = bngain * bnraw + bnbias
    # non-linearity
    h = np.tanh(hpreact)
    # linear layer 2
    logits = h @ W2 + b2
    # cross-entropy loss, as F.cross_entropy(logits, Yb) computes it
    logit_maxes = logits.max(1, keepdims=True)
    norm_logits = logits - logit_maxes  # for stability
    counts = np.exp(norm_logits)
    counts_sum = counts.sum(1, keepdims=True)
    counts_sum_inv = counts_sum**-1
    probs = counts * counts_sum_inv
    logprobs = np.log(probs)
    loss = -logprobs[np.arange(n), Yb].mean()
    return dict(C=C, W1=W1, b1=b1, bngain=bngain, bnbias=bnbias, W2=W2, b2=b2, Xb=Xb, Yb=Yb, emb=emb,
                embcat=embcat, hprebn=hprebn, bnmeani=bnmeani, bndiff=bndiff, bndiff2=bndiff2, bnvar=bnvar,
                bnvar_inv=bnvar_inv, bnraw=bnraw, hpreact=hpreact, h=h, logits=logits, logit_maxes=logit_maxes,
                norm_logits=norm_logits, counts=counts, counts_sum=counts_sum, counts_sum_inv=counts_sum_inv,
                probs=probs, logprobs=logprobs, loss=loss)


def manual_backward(f):
    """The gradient of the loss with respect to every intermediate and parameter of forward(), by hand.

    Returns a dict with the same names as forward's; each gradient has its tensor's shape.
    """
    n = f["Xb"].shape[0]
    Xb, Yb, C, W1, W2, bngain = f["Xb"], f["Yb"], f["C"], f["W1"], f["W2"], f["bngain"]
    emb, embcat, hprebn, bndiff, bndiff2 = f["emb"], f["embcat"], f["hprebn"], f["bndiff"], f["bndiff2"]
    bnvar, bnvar_inv, bnraw, h, logits = f["bnvar"], f["bnvar_inv"], f["bnraw"], f["h"], f["logits"]
    counts, counts_sum, counts_sum_inv, probs = f["counts"], f["counts_sum"], f["counts_sum_inv"], f["probs"]

    dlogprobs = np.zeros_like(f["logprobs"])
    dlogprobs[np.arange(n), Yb] = -1.0 / n
    dprobs = dlogprobs / probs
    dcounts_sum_inv = (dprobs * counts).sum(1, keepdims=True)
    dcounts = dprobs * counts_sum_inv
    dcounts_sum = -(counts_sum**-2) * dcounts_sum_inv
    dcounts += np.ones_like(counts) * dcounts_sum
    dnorm_logits = counts * dcounts
    dlogit_maxes = -dnorm_logits.sum(1, keepdims=True)
    dlogits = dnorm_logits.copy()
    dlogits += np.eye(logits.shape[1])[logits.argmax(1)] * dlogit_maxes
    dh = dlogits @ W2.T
    dW2 = h.T @ dlogits
    db2 = dlogits.sum(0)
    dhpreact = (1.0 - h**2) * dh
    dbngain = (bnraw * dhpreact).sum(0, keepdims=True)
    dbnbias = dhpreact.sum(0, keepdims=True)
    dbnraw = bngain * dhpreact
    dbnvar_inv = (bndiff * dbnraw).sum(0, keepdims=True)
    dbnvar = -0.5 * (bnvar + 1e-5) ** -1.5 * dbnvar_inv
    dbndiff2 = 1.0 / (n - 1) * np.ones_like(bndiff2) * dbnvar
    dbndiff = bnvar_inv * dbnraw
    dbnmeani = -dbndiff.sum(0, keepdims=True)
    dhprebn = dbndiff + 1.0 / n * np.ones_like(hprebn) * dbnmeani
    dembcat = dhprebn @ W1.T
    dW1 = embcat.T @ dhprebn
    db1 = dhprebn.sum(0)
    demb = dembcat.reshape(emb.shape)
    dC = np.zeros_like(C)
    np.add.at(dC, Xb, demb)  # a character used twice gets both gradients
    return dict(logprobs=dlogprobs, probs=dprobs, counts_sum_inv=dcounts_sum_inv, counts_sum=dcounts_sum,
                counts=dcounts, norm_logits=dnorm_logits, logit_maxes=dlogit_maxes, logits=dlogits, h=dh, W2=dW2,
                b2=db2, hpreact=dhpreact, bngain=dbngain, bnbias=dbnbias, bnraw=dbnraw, bnvar_inv=dbnvar_inv,
                bnvar=dbnvar, bndiff2=dbndiff2, bndiff=dbndiff, bnmeani=dbnmeani, hprebn=dhprebn, embcat=dembcat,
                W1=dW1, b1=db1, emb=demb, C=dC)
