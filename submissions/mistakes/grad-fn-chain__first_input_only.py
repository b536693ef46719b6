# exercise: grad-fn-chain
# Mistake: the student follows the chain by always taking the first entry of next_functions
# (fn.next_functions[0][0]), as if the graph were a single line, and stops at the first None.
# Other inputs (a second tensor that needs a gradient) are never walked.


def chain(t):
    names = []
    fn = t.grad_fn
    while fn is not None:
        names.append(type(fn).__name__)
        if not fn.next_functions:
            break
        fn = fn.next_functions[0][0]
    return names
