# exercise: grad-fn-chain
# Keeps a set of visited nodes, as a topological sort would, so a node met twice (w's bucket
# in w * w, or a leaf used in two branches) is listed only once.


def chain(t):
    names, seen = [], set()

    def visit(fn):
        if fn is None or fn in seen:
            return
        seen.add(fn)
        names.append(type(fn).__name__)
        for parent, _ in fn.next_functions:
            visit(parent)

    visit(t.grad_fn)
    return names
