"""Mutant of integration.

mistake: derivatives-overwritten
hint: A Scalar used more than once gets a derivative from each use: add them up (+=), do not replace one with
    the next.
"""


def backpropagate(variable, deriv):
    pending = {variable.unique_id: deriv}
    for node in topological_sort(variable):
        d_node = pending.pop(node.unique_id, 0.0)
        if node.is_leaf():
            node.accumulate_derivative(d_node)
            continue
        for parent, d_parent in node.chain_rule(d_node):
            if parent.is_constant():
                continue
            pending[parent.unique_id] = d_parent
