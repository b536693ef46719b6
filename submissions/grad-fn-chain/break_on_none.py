# exercise: grad-fn-chain
# Stops looking at a node's inputs at the first None (break, where continue was meant): after
# x * w1 the walk never reaches w1's bucket, because x's entry comes first.


def chain(t):
    names = []

    def visit(fn):
        names.append(type(fn).__name__)
        for parent, _ in fn.next_functions:
            if parent is None:
                break
            visit(parent)

    if t.grad_fn is not None:
        visit(t.grad_fn)
    return names
