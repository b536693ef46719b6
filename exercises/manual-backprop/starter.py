# exercise: manual-backprop
"""Exercise manual-backprop: becoming a backprop ninja (Karpathy's lecture, exercise 1), in numpy.

forward() is given: the lecture's MLP, one small step at a time. Fill in manual_backward(f): the
gradient of the loss with respect to each intermediate, by hand, in the order given (each from
the ones before it). Every gradient is its own check; a wrong one is named as the root, and the
later ones that are wrong only because of it are marked.
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

    # Each line: the gradient of the loss with respect to one tensor, from the gradients above it
    # (the tensors it feeds). Replace each None with numpy; the shape is that tensor's shape.
    dlogprobs = None  # TODO
    dprobs = None  # TODO
    dcounts_sum_inv = None  # TODO
    dcounts_sum = None  # TODO
    dcounts = None  # TODO
    dnorm_logits = None  # TODO
    dlogit_maxes = None  # TODO
    dlogits = None  # TODO
    dh = None  # TODO
    dW2 = None  # TODO
    db2 = None  # TODO
    dhpreact = None  # TODO
    dbngain = None  # TODO
    dbnbias = None  # TODO
    dbnraw = None  # TODO
    dbnvar_inv = None  # TODO
    dbnvar = None  # TODO
    dbndiff2 = None  # TODO
    dbndiff = None  # TODO
    dbnmeani = None  # TODO
    dhprebn = None  # TODO
    dembcat = None  # TODO
    dW1 = None  # TODO
    db1 = None  # TODO
    demb = None  # TODO
    dC = None  # TODO
    return dict(logprobs=dlogprobs, probs=dprobs, counts_sum_inv=dcounts_sum_inv, counts_sum=dcounts_sum,
                counts=dcounts, norm_logits=dnorm_logits, logit_maxes=dlogit_maxes, logits=dlogits, h=dh, W2=dW2,
                b2=db2, hpreact=dhpreact, bngain=dbngain, bnbias=dbnbias, bnraw=dbnraw, bnvar_inv=dbnvar_inv,
                bnvar=dbnvar, bndiff2=dbndiff2, bndiff=dbndiff, bnmeani=dbnmeani, hprebn=dhprebn, embcat=dembcat,
                W1=dW1, b1=db1, emb=demb, C=dC)
