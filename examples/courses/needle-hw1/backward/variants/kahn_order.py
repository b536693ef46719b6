"""Variant of backward: find_topo_sort by Kahn's algorithm (count each node's inputs, release a node once all of
them are placed) instead of a depth-first walk."""


def find_topo_sort(node_list):
    nodes, pending = [], list(node_list)
    seen = set()
    while pending:
        node = pending.pop()
        if node in seen:
            continue
        seen.add(node)
        nodes.append(node)
        pending.extend(node.inputs)
    waiting = {node: len(set(node.inputs)) for node in nodes}
    users = {node: [] for node in nodes}
    for node in nodes:
        for parent in set(node.inputs):
            users[parent].append(node)
    ready = [node for node in nodes if waiting[node] == 0]
    order = []
    while ready:
        node = ready.pop()
        order.append(node)
        for user in users[node]:
            waiting[user] -= 1
            if waiting[user] == 0:
                ready.append(user)
    return order
