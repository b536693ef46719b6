"""Mutant of backward.

mistake: no-visited-set
hint: Mark the nodes you have visited and skip them: a node reached along two paths must appear once in the
  order, or its gradient is passed on twice.
"""


def topo_sort_dfs(node, visited, topo_order):
    for parent in node.inputs:
        topo_sort_dfs(parent, visited, topo_order)
    topo_order.append(node)
