# exercise: accumulation
# Correct, in another style: clears with zero_() once a grad exists (as zero_grad(set_to_none=False)
# would), copies each value out with float(), and lets the second backward() raise by itself.
import torch


def grads_after(w, calls, clear=False):
    seen = []
    while len(seen) < calls:
        if clear and w.grad is not None:
            w.grad.zero_()
        (w * w).backward()
        seen.append(float(w.grad))
    return seen


def backward_twice(w, retain):
    square = torch.mul(w, w)
    square.backward(retain_graph=retain)
    square.backward()
    return float(w.grad)
