"""The tensor engine's interface over torch float64,
so that one probe runs on torch too (CPU or CUDA).

`.data` and `.grad` are numpy arrays on the CPU whatever the device, so that probe code, written
for numpy, reads the same on every engine.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import torch

from reference.tensor import Array, Axis, unpacked


class TorchTensor:
    """A `Tensor` whose arithmetic and gradients are torch's own."""

    device: ClassVar[torch.device] = torch.device("cpu")
    __slots__ = ("tensor",)
    __array_priority__ = 1000

    def __init__(self, data: Any) -> None:
        if isinstance(data, torch.Tensor):
            tensor = data
            if tensor.requires_grad and not tensor.is_leaf:
                tensor.retain_grad()  # the interface lets a probe read any tensor's grad
        else:
            if isinstance(data, TorchTensor):
                data = data.data
            tensor = torch.tensor(
                np.array(data, dtype=np.float64), device=self.device, requires_grad=True
            )
        self.tensor = tensor

    def __repr__(self) -> str:
        return f"TorchTensor({self.data!r})"

    @property
    def data(self) -> Array:
        return np.array(self.tensor.detach().cpu().numpy(), dtype=np.float64)

    @property
    def grad(self) -> Array | None:
        g = self.tensor.grad
        return None if g is None else np.array(g.cpu().numpy(), dtype=np.float64)

    @grad.setter
    def grad(self, new: Array | None) -> None:
        self.tensor.grad = (
            None
            if new is None
            else torch.tensor(np.asarray(new, dtype=np.float64), device=self.device)
        )

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.tensor.shape)

    @property
    def ndim(self) -> int:
        return self.tensor.dim()

    def _make(self, tensor: torch.Tensor) -> TorchTensor:
        return type(self)(tensor)

    def _t(self, other: TorchTensor | Any) -> torch.Tensor:
        if isinstance(other, TorchTensor):
            return other.tensor
        return torch.tensor(np.asarray(other, dtype=np.float64), device=self.device)

    def __add__(self, other: Any) -> TorchTensor:
        return self._make(self.tensor + self._t(other))

    def __sub__(self, other: Any) -> TorchTensor:
        return self._make(self.tensor - self._t(other))

    def __mul__(self, other: Any) -> TorchTensor:
        return self._make(self.tensor * self._t(other))

    def __truediv__(self, other: Any) -> TorchTensor:
        return self._make(self.tensor / self._t(other))

    def __neg__(self) -> TorchTensor:
        return self._make(-self.tensor)

    def __pow__(self, n: float) -> TorchTensor:
        return self._make(self.tensor**n)

    def __radd__(self, other: Any) -> TorchTensor:
        return self._make(self._t(other) + self.tensor)

    def __rsub__(self, other: Any) -> TorchTensor:
        return self._make(self._t(other) - self.tensor)

    def __rmul__(self, other: Any) -> TorchTensor:
        return self._make(self._t(other) * self.tensor)

    def __rtruediv__(self, other: Any) -> TorchTensor:
        return self._make(self._t(other) / self.tensor)

    def __matmul__(self, other: Any) -> TorchTensor:
        return self._make(self.tensor @ self._t(other))

    def __rmatmul__(self, other: Any) -> TorchTensor:
        return self._make(self._t(other) @ self.tensor)

    def exp(self) -> TorchTensor:
        return self._make(torch.exp(self.tensor))

    def log(self) -> TorchTensor:
        return self._make(torch.log(self.tensor))

    def relu(self) -> TorchTensor:
        return self._make(torch.relu(self.tensor))

    def tanh(self) -> TorchTensor:
        return self._make(torch.tanh(self.tensor))

    def sum(self, axis: Axis = None, keepdims: bool = False) -> TorchTensor:
        return self._make(torch.sum(self.tensor, dim=self._dims(axis), keepdim=keepdims))

    def mean(self, axis: Axis = None, keepdims: bool = False) -> TorchTensor:
        return self._make(torch.mean(self.tensor, dim=self._dims(axis), keepdim=keepdims))

    def max(self, axis: Axis = None, keepdims: bool = False) -> TorchTensor:
        # ties share, as ours
        return self._make(torch.amax(self.tensor, dim=self._dims(axis), keepdim=keepdims))

    def _dims(self, axis: Axis) -> tuple[int, ...]:
        return (
            tuple(range(self.ndim))
            if axis is None
            else (axis,)
            if isinstance(axis, int)
            else tuple(axis)
        )

    def reshape(self, *shape: int | tuple[int, ...]) -> TorchTensor:
        return self._make(self.tensor.reshape(unpacked(shape)))

    def transpose(self, *axes: int | tuple[int, ...]) -> TorchTensor:
        return self._make(self.tensor.permute(unpacked(axes) or tuple(reversed(range(self.ndim)))))

    permute = transpose

    @property
    def T(self) -> TorchTensor:  # numpy's name
        return self.transpose()

    def broadcast_to(self, shape: tuple[int, ...]) -> TorchTensor:
        return self._make(torch.broadcast_to(self.tensor, shape))

    def __getitem__(self, index: Any) -> TorchTensor:
        return self._make(self.tensor[self._index(index)])

    def _index(self, index: Any) -> Any:
        if isinstance(index, tuple):
            return tuple(self._index(i) for i in index)
        if isinstance(index, TorchTensor):
            index = index.data
        if isinstance(index, (np.ndarray, list, range)):
            return torch.as_tensor(np.asarray(index, dtype=np.int64), device=self.device)
        return index

    def backward(self, grad: Any = None) -> None:
        # Probes may call backward() on the same graph twice; torch would free it after once.
        seed = (
            None
            if grad is None
            else torch.tensor(np.asarray(grad, dtype=np.float64), device=self.device)
        )
        torch.autograd.backward(self.tensor, grad_tensors=seed, retain_graph=True)


def torch_tensor_class(device: str | torch.device = "cpu") -> type[TorchTensor]:
    """A `TorchTensor` class whose fresh tensors live
    on `device` (`cpu`, or `cuda` when available)."""
    dev = torch.device(device)
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("CUDA was asked for, but torch.cuda.is_available() is False here")
    return type(f"TorchTensor_{dev.type}", (TorchTensor,), {"device": dev, "__slots__": ()})
