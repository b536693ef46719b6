# exercise: detach-fix
"""Mutant of detach-fix.

mistake: returns-a-tensor
hint: t.detach() is still a tensor: finish with .cpu().numpy() to get a NumPy array.
"""


def to_numpy(t):
    return t.detach().cpu()
