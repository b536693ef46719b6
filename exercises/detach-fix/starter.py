# exercise: detach-fix
"""Exercise detach-fix: NumPy and tensors that require grad.

To plot or save values during training you want them as a NumPy array. But the function below
fails on any tensor that is part of a graph:

    RuntimeError: Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.

The contract, which the grader checks:

    to_numpy(t) -> numpy.ndarray

- the result is a NumPy array with t's values, shape and dtype (a 0-d tensor gives a 0-d array);
- it works for any tensor: one that requires grad or not, a leaf (w) or a computed result
  (w * 3), on the CPU or on a GPU (CUDA);
- t is left exactly as it was: it still requires grad, and backward() through it afterwards
  still fills the gradients. Do not switch requires_grad off or detach t in place.

The Autograd lesson's example: w = torch.tensor([1.0, 2.0], requires_grad=True); out = w * 3;
to_numpy(out) holds 3 and 6 (detached: tensor([3., 6.])), and out.sum().backward() afterwards
still gives w.grad = tensor([3., 3.]).

Note for GPUs: numpy() reads CPU memory only, so a CUDA tensor has to be copied to the CPU first.
Checks on CUDA run only where a GPU is available, and are skipped (never failed) elsewhere.
"""


def to_numpy(t):
    """Return t's values as a NumPy array, leaving t as it was."""
    return t.numpy()
