"""A numpy tensor autograd engine, the oracle of the
tensor exercises: each op's backward beside its forward."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

Array = NDArray[np.float64]
#: the output's gradient -> one gradient per parent, each of that parent's shape
Backward = Callable[[Array], tuple[Array, ...]]
Axis = int | tuple[int, ...] | None


class Tensor:
    """An ndarray that remembers how it was made, so that `backward()` can find every gradient.

    `.grad` is None until a backward pass reaches the tensor; it then has the tensor's shape and,
    as in torch, adds up over backward() calls until it is reset.
    """

    __slots__ = ("_backward", "data", "grad", "parents")
    #: numpy defers to us in `ndarray + Tensor`, so that __radd__ and friends run
    __array_priority__ = 1000

    def __init__(
        self, data: Any, parents: tuple[Tensor, ...] = (), backward: Backward | None = None
    ) -> None:
        # a copy: no tensor shares memory with its input
        self.data: Array = np.array(data, dtype=np.float64)
        self.grad: Array | None = None
        self.parents, self._backward = parents, backward

    def __repr__(self) -> str:
        return f"Tensor({self.data!r})"

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.data.shape)

    @property
    def ndim(self) -> int:
        return int(self.data.ndim)

    # New tensors are of the operand's own class, so that a
    # subclass (grader.judge.tensor.tensor_patterns) sees every op.
    def _make(self, data: Any, parents: tuple[Tensor, ...], backward: Backward) -> Tensor:
        return type(self)(data, parents, backward)

    def _lift(self, x: Tensor | Any) -> Tensor:
        return x if isinstance(x, Tensor) else type(self)(x)

    # ---- element-wise, with numpy's broadcasting:
    # each gradient is summed back to its input's shape

    def __add__(self, other: Tensor | Any) -> Tensor:
        other = self._lift(other)
        return self._make(
            self.data + other.data,
            (self, other),
            lambda g: (sum_to_shape(g, self.shape), sum_to_shape(g, other.shape)),
        )

    def __sub__(self, other: Tensor | Any) -> Tensor:
        other = self._lift(other)
        return self._make(
            self.data - other.data,
            (self, other),
            lambda g: (sum_to_shape(g, self.shape), sum_to_shape(-g, other.shape)),
        )

    def __mul__(self, other: Tensor | Any) -> Tensor:
        other = self._lift(other)
        a, b = self.data, other.data
        return self._make(
            a * b,
            (self, other),
            lambda g: (sum_to_shape(g * b, a.shape), sum_to_shape(g * a, b.shape)),
        )

    def __truediv__(self, other: Tensor | Any) -> Tensor:
        other = self._lift(other)
        a, b = self.data, other.data
        return self._make(
            a / b,
            (self, other),
            lambda g: (sum_to_shape(g / b, a.shape), sum_to_shape(-g * a / b**2, b.shape)),
        )

    def __neg__(self) -> Tensor:
        return self._make(-self.data, (self,), lambda g: (-g,))

    def __pow__(self, n: float) -> Tensor:
        a = self.data
        return self._make(a**n, (self,), lambda g: (g * n * a ** (n - 1),))

    def __radd__(self, other: Any) -> Tensor:
        return self._lift(other) + self

    def __rsub__(self, other: Any) -> Tensor:
        return self._lift(other) - self

    def __rmul__(self, other: Any) -> Tensor:
        return self._lift(other) * self

    def __rtruediv__(self, other: Any) -> Tensor:
        return self._lift(other) / self

    def exp(self) -> Tensor:
        e = np.exp(self.data)
        return self._make(e, (self,), lambda g: (g * e,))

    def log(self) -> Tensor:
        a = self.data
        return self._make(np.log(a), (self,), lambda g: (g / a,))

    def relu(self) -> Tensor:
        open_ = self.data > 0  # the slope at exactly 0 is 0, as in torch
        return self._make(
            np.where(open_, self.data, 0.0), (self,), lambda g: (np.where(open_, g, 0.0),)
        )

    def tanh(self) -> Tensor:
        t = np.tanh(self.data)
        return self._make(t, (self,), lambda g: (g * (1 - t * t),))

    # ---- reductions: the gradient of a reduced axis is spread back over it

    def sum(self, axis: Axis = None, keepdims: bool = False) -> Tensor:
        shape, ndim = self.shape, self.ndim
        return self._make(
            self.data.sum(axis=axis, keepdims=keepdims),
            (self,),
            lambda g: (np.broadcast_to(_kept(g, ndim, axis, keepdims), shape).copy(),),
        )

    def mean(self, axis: Axis = None, keepdims: bool = False) -> Tensor:
        count = int(self.data.size // max(self.data.sum(axis=axis, keepdims=keepdims).size, 1))
        return self.sum(axis, keepdims) / count

    def max(self, axis: Axis = None, keepdims: bool = False) -> Tensor:
        """The tie rule: tied maxima share the gradient equally (as torch.amax does)."""
        a, ndim = self.data, self.ndim
        top = a.max(axis=axis, keepdims=True)
        share = (a == top) / (a == top).sum(axis=axis, keepdims=True)
        return self._make(
            a.max(axis=axis, keepdims=keepdims),
            (self,),
            lambda g: (_kept(g, ndim, axis, keepdims) * share,),
        )

    # ---- shapes: each backward undoes its forward

    def reshape(self, *shape: int | tuple[int, ...]) -> Tensor:
        before = self.shape
        return self._make(
            self.data.reshape(unpacked(shape)), (self,), lambda g: (g.reshape(before),)
        )

    def transpose(self, *axes: int | tuple[int, ...]) -> Tensor:
        """Permute the axes (all of them reversed by default), as ndarray.transpose does."""
        order = unpacked(axes) or tuple(reversed(range(self.ndim)))
        inverse = tuple(int(i) for i in np.argsort(order))
        return self._make(self.data.transpose(order), (self,), lambda g: (g.transpose(inverse),))

    permute = transpose

    @property
    def T(self) -> Tensor:  # numpy's name
        return self.transpose()

    def broadcast_to(self, shape: tuple[int, ...]) -> Tensor:
        before = self.shape
        return self._make(
            np.broadcast_to(self.data, shape).copy(), (self,), lambda g: (sum_to_shape(g, before),)
        )

    def __getitem__(self, index: Any) -> Tensor:
        index = _plain_index(index)
        shape = self.shape

        def backward(g: Array) -> tuple[Array, ...]:
            full = np.zeros(shape)
            # a position picked twice (an embedding row) gets both gradients
            np.add.at(full, index, g)
            return (full,)

        return self._make(self.data[index], (self,), backward)

    # ---- matrix product, 2-D or batched (batch axes broadcast as in numpy)

    def __matmul__(self, other: Tensor | Any) -> Tensor:
        other = self._lift(other)
        a, b = self.data, other.data
        if a.ndim < 2 or b.ndim < 2:
            raise ValueError(
                f"matmul needs two tensors of at least 2 dimensions, got shapes {a.shape} and "
                f"{b.shape}"
            )
        return self._make(
            a @ b,
            (self, other),
            lambda g: (
                sum_to_shape(g @ b.swapaxes(-1, -2), a.shape),
                sum_to_shape(a.swapaxes(-1, -2) @ g, b.shape),
            ),
        )

    def __rmatmul__(self, other: Any) -> Tensor:
        return self._lift(other) @ self

    # ---- the backward pass

    def backward(self, grad: Any = None) -> None:
        """Every gradient of this tensor, by the chain rule in reverse topological order.

        Seeded with ones for a tensor of one element,
        otherwise with `grad` (of this tensor's shape).
        """
        if grad is None:
            if self.data.size != 1:
                raise ValueError(
                    f"backward() of a tensor of shape {self.shape} needs a gradient: "
                    "only a single number can be seeded with 1"
                )
            grad = np.ones(self.shape)
        seed = np.array(grad, dtype=np.float64)
        if seed.shape != self.shape:
            raise ValueError(f"the gradient has shape {seed.shape}, the tensor {self.shape}")
        pending: dict[int, Array] = {id(self): seed}
        # outputs first: a grad is complete when it is used
        for node in reversed(topological_order(self)):
            g = pending.pop(id(node), None)
            if g is None:
                continue
            # out of place: no aliasing
            node.grad = g.copy() if node.grad is None else node.grad + g
            if node._backward is None:
                continue
            for parent, part in zip(node.parents, node._backward(g), strict=True):
                assert part.shape == parent.shape, (
                    f"gradient of shape {part.shape} for a tensor of {parent.shape}"
                )
                pending[id(parent)] = (
                    part if id(parent) not in pending else pending[id(parent)] + part
                )


def topological_order(root: Tensor) -> list[Tensor]:
    """Every tensor `root` depends on, inputs before
    outputs (iterative: deep graphs do not recurse)."""
    order: list[Tensor] = []
    seen: set[int] = set()
    stack: list[tuple[Tensor, bool]] = [(root, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
        elif id(node) not in seen:
            seen.add(id(node))
            stack.append((node, True))
            stack.extend(
                (parent, False) for parent in reversed(node.parents) if id(parent) not in seen
            )
    return order


def sum_to_shape(grad: Array, shape: tuple[int, ...]) -> Array:
    """The adjoint of broadcasting: sum the axes
    broadcasting prepended, then those it stretched from 1."""
    grad = grad.sum(axis=tuple(range(grad.ndim - len(shape))))
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    return grad.sum(axis=stretched, keepdims=True) if stretched else grad


def unpacked(args: tuple[int | tuple[int, ...], ...]) -> tuple[int, ...]:
    """`reshape(2, 3)` and `reshape((2, 3))` alike, as numpy takes them."""
    if len(args) == 1 and isinstance(args[0], tuple):
        return args[0]
    return tuple(int(a) for a in args)  # type: ignore[arg-type]  # only ints remain


def _kept(g: Array, ndim: int, axis: Axis, keepdims: bool) -> Array:
    """A reduction's gradient with its reduced axes
    back, as size 1, so that it broadcasts over them."""
    if keepdims or (axis is None and g.ndim == ndim):
        return g
    axes = range(ndim) if axis is None else (axis,) if isinstance(axis, int) else axis
    return np.expand_dims(g, tuple(a % ndim for a in axes))


def _plain_index(index: Any) -> Any:
    """Tensors used as indices become their (integer) data."""
    if isinstance(index, tuple):
        return tuple(_plain_index(i) for i in index)
    if isinstance(index, Tensor):
        return index.data.astype(np.int64)
    return index


# ---- the same operations as functions, for code that reads better that way


def exp(x: Tensor) -> Tensor:
    return x.exp()


def log(x: Tensor) -> Tensor:
    return x.log()


def relu(x: Tensor) -> Tensor:
    return x.relu()


def tanh(x: Tensor) -> Tensor:
    return x.tanh()


def matmul(a: Tensor, b: Tensor) -> Tensor:
    return a @ b


def reshape(x: Tensor, *shape: int) -> Tensor:
    return x.reshape(*shape)


def transpose(x: Tensor, *axes: int) -> Tensor:
    return x.transpose(*axes)


def broadcast_to(x: Tensor, shape: tuple[int, ...]) -> Tensor:
    return x.broadcast_to(shape)


def summation(x: Tensor, axis: Axis = None, keepdims: bool = False) -> Tensor:
    return x.sum(axis, keepdims)


def mean(x: Tensor, axis: Axis = None, keepdims: bool = False) -> Tensor:
    return x.mean(axis, keepdims)


def maximum(x: Tensor, axis: Axis = None, keepdims: bool = False) -> Tensor:
    return x.max(axis, keepdims)
