# exercise: accumulation
"""Exercise accumulation: gradients add up across backward() calls.

Take y = w * w with w = 3. Both inputs of the multiply are w, so backward() sends 3 along each
path and w's bucket adds them up: w.grad is 6, the derivative 2w. The bucket keeps adding
across calls too: build y again, call backward() again, and w.grad goes from 6 to 12. Clear it
in between (w.grad = None, as optimizer.zero_grad() does) and it is 6 again.

Write two functions. w is always a one-number leaf tensor with requires_grad=True; work on it
directly (its .grad is part of the answer), and return plain Python floats (.item()).

grads_after(w, calls, clear=False) -> list[float]
    Do `calls` passes. Each pass builds y = w * w afresh, calls y.backward() and records
    w.grad.item(). Clear nothing unless clear=True: the passes add up, on top of whatever
    w.grad already held when grads_after was called. With clear=True, set w.grad = None before
    each pass, so every entry is 2w. At w = 3: grads_after(w, 2) is [6.0, 12.0], and
    grads_after(w, 2, clear=True) is [6.0, 6.0].

backward_twice(w, retain) -> float
    Build y = w * w once and call y.backward() twice, the first time with
    retain_graph=retain. Without retain_graph the first backward() frees what the graph saved,
    so the second one raises RuntimeError("Trying to backward through the graph a second
    time ..."): do not catch it, that error is the right outcome. With retain=True return
    w.grad.item() after both calls: 12.0 at w = 3.
"""


def grads_after(w, calls, clear=False):
    """Return w.grad.item() after each of `calls` backward passes of a freshly built w * w."""
    # TODO: for each pass: if clear, set w.grad = None; build y = w * w; call y.backward();
    # append w.grad.item(). Return the list.
    raise NotImplementedError("accumulation: implement grads_after")


def backward_twice(w, retain):
    """Build y = w * w once, call y.backward(retain_graph=retain), then y.backward(); return w.grad.item()."""
    # TODO: the second backward() raises when retain is False; let it.
    raise NotImplementedError("accumulation: implement backward_twice")
