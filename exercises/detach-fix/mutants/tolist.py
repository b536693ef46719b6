# exercise: detach-fix
"""Mutant of detach-fix.

mistake: returns-a-list
hint: t.tolist() is a Python list, not a NumPy array: use t.detach().cpu().numpy(), which keeps the shape and dtype.
"""


def to_numpy(t):
    return t.tolist()
