# exercise: manual-backprop
"""Variant of manual-backprop: the cross-entropy and batch norm gradients each in one fused step (as the lecture's
exercises 2 and 3 write them), the intermediates they skip derived from them; the rest as the chain rule goes."""

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
    n = f["Xb"].shape[0]
    Xb, Yb, C, W1, W2, bngain = f["Xb"], f["Yb"], f["C"], f["W1"], f["W2"], f["bngain"]
    emb, embcat, bndiff, bnvar = f["emb"], f["embcat"], f["bndiff"], f["bnvar"]
    bnvar_inv, bnraw, h, logits = f["bnvar_inv"], f["bnraw"], f["h"], f["logits"]
    counts, counts_sum, counts_sum_inv, probs = f["counts"], f["counts_sum"], f["counts_sum_inv"], f["probs"]
    rows = np.arange(n)

    # the loss's intermediates, each from the one after it
    dlogprobs = np.zeros_like(probs)
    dlogprobs[rows, Yb] = -1.0 / n
    dprobs = dlogprobs / probs
    dcounts_sum_inv = np.sum(dprobs * counts, axis=1, keepdims=True)
    dcounts_sum = -dcounts_sum_inv / counts_sum**2
    dcounts = dprobs * counts_sum_inv + dcounts_sum
    dnorm_logits = dcounts * counts
    dlogit_maxes = -np.sum(dnorm_logits, axis=1, keepdims=True)
    # the logits' gradient in one step: softmax less the one-hot, over n
    dlogits = probs.copy()
    dlogits[rows, Yb] -= 1.0
    dlogits /= n
    dh = dlogits @ W2.T
    dW2 = h.T @ dlogits
    db2 = dlogits.sum(axis=0)
    dhpreact = dh * (1.0 - h * h)
    dbngain = np.sum(dhpreact * bnraw, axis=0, keepdims=True)
    dbnbias = np.sum(dhpreact, axis=0, keepdims=True)
    dbnraw = dhpreact * bngain
    dbnvar_inv = np.sum(dbnraw * bndiff, axis=0, keepdims=True)
    dbnvar = dbnvar_inv * -0.5 * bnvar_inv**3
    dbndiff2 = np.broadcast_to(dbnvar / (n - 1), bndiff.shape).copy()
    dbndiff = dbnraw * bnvar_inv + 2.0 * bndiff * dbndiff2
    dbnmeani = -np.sum(dbndiff, axis=0, keepdims=True)
    # batch norm's input gradient in one step (Bessel's n - 1 in the variance)
    dhprebn = bngain * bnvar_inv / n * (n * dhpreact - dhpreact.sum(0) - n / (n - 1) * bnraw * (dhpreact * bnraw).sum(0))
    dembcat = dhprebn @ W1.T
    dW1 = embcat.T @ dhprebn
    db1 = dhprebn.sum(axis=0)
    demb = dembcat.reshape(emb.shape)
    dC = np.zeros_like(C)
    for i in range(Xb.shape[0]):
        for j in range(Xb.shape[1]):
            dC[Xb[i, j]] += demb[i, j]
    return dict(logprobs=dlogprobs, probs=dprobs, counts_sum_inv=dcounts_sum_inv, counts_sum=dcounts_sum,
                counts=dcounts, norm_logits=dnorm_logits, logit_maxes=dlogit_maxes, logits=dlogits, h=dh, W2=dW2,
                b2=db2, hpreact=dhpreact, bngain=dbngain, bnbias=dbnbias, bnraw=dbnraw, bnvar_inv=dbnvar_inv,
                bnvar=dbnvar, bndiff2=dbndiff2, bndiff=dbndiff, bnmeani=dbnmeani, hprebn=dhprebn, embcat=dembcat,
                W1=dW1, b1=db1, emb=demb, C=dC)
