"""Mutant of autodiff.

mistake: topological-order-not-reversed
hint: Backpropagation starts at the output: list each Scalar before the Scalars it was made from (a depth-first
    search finishes the inputs first, so reverse what it finishes).
"""


def topological_sort(variable):
    finished = []
    seen = set()
    pending = [(variable, False)]
    while pending:
        node, expanded = pending.pop()
        if expanded:
            finished.append(node)
            continue
        if node.unique_id in seen or node.is_constant():
            continue
        seen.add(node.unique_id)
        pending.append((node, True))
        if not node.is_leaf():
            for parent in node.parents:
                if parent.unique_id not in seen:
                    pending.append((parent, False))
    return finished
