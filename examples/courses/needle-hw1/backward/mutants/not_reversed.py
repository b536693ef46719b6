"""Mutant of backward.

mistake: topological-order-not-reversed
hint: Walk the topological order backwards (reversed(find_topo_sort(...))): a node's gradient is complete only once
  every node made from it has sent its part, and those come after it in the order.
"""


def compute_gradient_of_variables(output_tensor, out_grad):
    grads_to_add = {output_tensor: [out_grad]}
    for node in find_topo_sort([output_tensor]):
        parts = grads_to_add.get(node, [])
        if not parts:
            continue
        node.grad = sum_node_list(parts)
        if node.op is None:
            continue
        for parent, part in zip(node.inputs, node.op.gradient_as_tuple(node.grad, node)):
            grads_to_add.setdefault(parent, []).append(part)
