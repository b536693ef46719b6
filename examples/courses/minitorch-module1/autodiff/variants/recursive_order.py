"""Variant of autodiff: topological_sort by a recursive depth-first walk, each node listed after its users by
reversing a post-order."""


def topological_sort(variable):
    order, seen = [], set()

    def visit(node):
        if node.unique_id in seen or node.is_constant():
            return
        seen.add(node.unique_id)
        if not node.is_leaf():
            for parent in node.parents:
                visit(parent)
        order.append(node)

    visit(variable)
    return order[::-1]
