"""Variant of integration: backpropagate keeps each Scalar's derivative in a dict and gives the leaves theirs at
the end."""


def backpropagate(variable, deriv):
    derivatives = {variable.unique_id: deriv}
    leaves = {}
    for node in topological_sort(variable):
        d_node = derivatives.get(node.unique_id, 0.0)
        if node.is_leaf():
            leaves[node.unique_id] = (node, d_node)
            continue
        for parent, d_parent in node.chain_rule(d_node):
            if not parent.is_constant():
                derivatives[parent.unique_id] = derivatives.get(parent.unique_id, 0.0) + d_parent
    for node, d_node in leaves.values():
        node.accumulate_derivative(d_node)
