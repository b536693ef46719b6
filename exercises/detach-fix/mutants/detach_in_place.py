# exercise: detach-fix
"""Mutant of detach-fix.

mistake: detach-in-place
hint: t.detach_() cuts t itself out of the graph, so backward() through it fails afterwards; t.detach() returns a cut-off copy and leaves t alone.
"""


def to_numpy(t):
    return t.detach_().cpu().numpy()
