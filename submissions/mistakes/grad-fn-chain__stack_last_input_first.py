# exercise: grad-fn-chain
# Mistake (partial): an explicit stack pushes next_functions in order and pops from the end, so
# the LAST input is walked first. A straight chain of one-input operations comes out right;
# any node with two inputs that both need gradients is walked in the wrong order.


def chain(t):
    names = []
    stack = [t.grad_fn] if t.grad_fn is not None else []
    while stack:
        fn = stack.pop()
        names.append(type(fn).__name__)
        for nxt, _ in fn.next_functions:
            if nxt is not None:
                stack.append(nxt)
    return names
