# exercise: detach-fix
"""Mutant of detach-fix.

mistake: switches-requires-grad-off
hint: don't change t: setting t.requires_grad = False fails on computed tensors and stops a weight from training; t.detach() gives the values without touching t.
"""


def to_numpy(t):
    t.requires_grad = False
    return t.cpu().numpy()
