"""Mutant of autodiff.

mistake: no-visited-set
hint: Mark each Scalar once it is visited and skip it the next time: a Scalar reached along two paths must be
    listed once, after everything made from it.
"""


def topological_sort(variable):
    order = []
    pending = [variable]
    while pending:
        node = pending.pop(0)
        if node.is_constant():
            continue
        order.append(node)
        if not node.is_leaf():
            pending.extend(node.parents)
    return order
