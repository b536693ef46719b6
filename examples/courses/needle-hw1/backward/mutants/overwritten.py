"""Mutant of backward.

mistake: gradients-overwritten
hint: A node used twice gets a part of its gradient from each use: add them all up (sum_node_list), do not keep
  only the last one.
"""


def compute_gradient_of_variables(output_tensor, out_grad):
    grads_to_add = {output_tensor: [out_grad]}
    for node in reversed(find_topo_sort([output_tensor])):
        node.grad = grads_to_add[node][-1]
        if node.op is None:
            continue
        for parent, part in zip(node.inputs, node.op.gradient_as_tuple(node.grad, node)):
            grads_to_add.setdefault(parent, []).append(part)
