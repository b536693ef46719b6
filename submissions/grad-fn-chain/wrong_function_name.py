# exercise: grad-fn-chain
# A correct walk, but under another name than the exercise asks for.


def grad_fn_chain(t):
    names = []

    def visit(fn):
        names.append(type(fn).__name__)
        for parent, _ in fn.next_functions:
            if parent is not None:
                visit(parent)

    if t.grad_fn is not None:
        visit(t.grad_fn)
    return names
