# exercise: grad-fn-chain
# Correct, written without recursion: an explicit stack, with each node's inputs pushed in
# reverse so that the first input comes off first; names from fn.name(), shortened.


def chain(t):
    found = []
    todo = [t.grad_fn]
    while todo:
        fn = todo.pop()
        if fn is None:
            continue
        found.append(fn.name().split("::")[-1])
        todo.extend(reversed([parent for parent, _ in fn.next_functions]))
    return found
