# exercise: detach-fix
"""Exercise detach-fix: cut a tensor from the graph before NumPy (solution)."""


def to_numpy(t):
    """A NumPy array with t's values, shape and dtype; t itself is left as it was."""
    return t.detach().cpu().numpy()
