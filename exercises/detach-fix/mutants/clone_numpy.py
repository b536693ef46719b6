# exercise: detach-fix
"""Mutant of detach-fix.

mistake: clone-is-not-detach
hint: t.clone() is a copy that is still in the graph and still requires grad; .detach() is what cuts it off.
"""


def to_numpy(t):
    return t.clone().cpu().numpy()
