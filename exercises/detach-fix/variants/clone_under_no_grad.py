# exercise: detach-fix
"""Variant of detach-fix: a copy taken under torch.no_grad(), which records nothing, moved to the CPU with .to()."""

import torch


def to_numpy(t):
    with torch.no_grad():
        copy = t.clone()
    return copy.to("cpu").numpy()
