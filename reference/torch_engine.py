"""The scalar `Node` interface over torch float64 tensors, so one probe runs on torch too."""

from __future__ import annotations

from typing import ClassVar

import torch


class TorchNode:
    """A `Node` whose arithmetic and gradients are torch's own (float64, on `device`)."""

    device: ClassVar[torch.device] = torch.device("cpu")
    __slots__ = ("tensor",)

    def __init__(
        self,
        value: float | torch.Tensor,
        parents: tuple[TorchNode, ...] = (),
        slopes: tuple[float, ...] = (),
    ) -> None:
        # parents and slopes exist for the lessons' signature; torch records the graph itself.
        if isinstance(value, torch.Tensor):
            tensor = value
            tensor.retain_grad()  # the Node interface lets a probe read any node's grad
        else:
            tensor = torch.tensor(
                float(value), dtype=torch.float64, device=self.device, requires_grad=True
            )
        self.tensor = tensor

    def __repr__(self) -> str:
        return f"TorchNode({self.value!r}, grad={self.grad!r})"

    @property
    def value(self) -> float:
        return float(self.tensor.detach().item())

    @property
    def grad(self) -> float:
        g = self.tensor.grad
        return 0.0 if g is None else float(g.item())

    @grad.setter
    def grad(self, new: float) -> None:
        self.tensor.grad = None if new == 0 else torch.full_like(self.tensor, float(new))

    def _make(self, tensor: torch.Tensor) -> TorchNode:
        return type(self)(tensor)

    def _lift(self, other: TorchNode | float) -> TorchNode:
        return other if isinstance(other, TorchNode) else type(self)(other)

    def __add__(self, other: TorchNode | float) -> TorchNode:
        return self._make(self.tensor + self._lift(other).tensor)

    def __mul__(self, other: TorchNode | float) -> TorchNode:
        return self._make(self.tensor * self._lift(other).tensor)

    def __sub__(self, other: TorchNode | float) -> TorchNode:
        return self._make(self.tensor - self._lift(other).tensor)

    def __truediv__(self, other: TorchNode | float) -> TorchNode:
        return self._make(self.tensor / self._lift(other).tensor)

    def __pow__(self, n: float) -> TorchNode:
        return self._make(self.tensor**n)

    def __neg__(self) -> TorchNode:
        return self._make(-self.tensor)

    def __radd__(self, other: float) -> TorchNode:
        return self._lift(other) + self

    def __rmul__(self, other: float) -> TorchNode:
        return self._lift(other) * self

    def __rsub__(self, other: float) -> TorchNode:
        return self._lift(other) - self

    def __rtruediv__(self, other: float) -> TorchNode:
        return self._lift(other) / self

    def sigmoid(self) -> TorchNode:
        return self._make(torch.sigmoid(self.tensor))

    def relu(self) -> TorchNode:
        return self._make(torch.relu(self.tensor))

    def tanh(self) -> TorchNode:
        return self._make(torch.tanh(self.tensor))

    def exp(self) -> TorchNode:
        return self._make(torch.exp(self.tensor))

    def log(self) -> TorchNode:
        return self._make(torch.log(self.tensor))

    def backward(self) -> None:
        # Probes may call backward() on the same graph twice; torch would free it after once.
        torch.autograd.backward(self.tensor, retain_graph=True)


def torch_node_class(device: str | torch.device = "cpu") -> type[TorchNode]:
    """A `TorchNode` class whose fresh leaves live on `device` (`cpu`, or `cuda` when available)."""
    dev = torch.device(device)
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("CUDA was asked for, but torch.cuda.is_available() is False here")
    return type(f"TorchNode_{dev.type}", (TorchNode,), {"device": dev, "__slots__": ()})
