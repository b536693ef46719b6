"""The ops of homework 1: each one's value (compute, on numpy arrays) and its inputs' gradients (gradient, built
from the ops themselves, so that a gradient is a graph too)."""
import numpy as array_api

from ..autograd import NDArray, Tensor, TensorOp


class EWiseAdd(TensorOp):
    def compute(self, a: NDArray, b: NDArray):
        return a + b

    def gradient(self, out_grad: Tensor, node: Tensor):
        return out_grad, out_grad


def add(a, b):
    return EWiseAdd()(a, b)


class AddScalar(TensorOp):
    def __init__(self, scalar):
        self.scalar = scalar

    def compute(self, a: NDArray):
        return a + self.scalar

    def gradient(self, out_grad: Tensor, node: Tensor):
        return out_grad


def add_scalar(a, scalar):
    return AddScalar(scalar)(a)


class EWiseMul(TensorOp):
    def compute(self, a: NDArray, b: NDArray):
        return a * b

    def gradient(self, out_grad: Tensor, node: Tensor):
        left, right = node.inputs
        return out_grad * right, out_grad * left


def multiply(a, b):
    return EWiseMul()(a, b)


class MulScalar(TensorOp):
    def __init__(self, scalar):
        self.scalar = scalar

    def compute(self, a: NDArray):
        return a * self.scalar

    def gradient(self, out_grad: Tensor, node: Tensor):
        return (out_grad * self.scalar,)


def mul_scalar(a, scalar):
    return MulScalar(scalar)(a)


class PowerScalar(TensorOp):
    """a ** n for a whole number n."""

    def __init__(self, scalar: int):
        self.scalar = scalar

    def compute(self, a: NDArray) -> NDArray:
        return array_api.power(a, self.scalar)

    def gradient(self, out_grad, node):
        base = node.inputs[0]
        return out_grad * (base ** (self.scalar - 1)) * self.scalar


def power_scalar(a, scalar):
    return PowerScalar(scalar)(a)


class EWisePow(TensorOp):
    """a ** b, elementwise."""

    def compute(self, a: NDArray, b: NDArray) -> NDArray:
        return a ** b

    def gradient(self, out_grad, node):
        base, exponent = node.inputs
        return out_grad * exponent * base ** (exponent - 1), out_grad * node * log(base)


def power(a, b):
    return EWisePow()(a, b)


class EWiseDiv(TensorOp):
    def compute(self, a, b):
        return a / b

    def gradient(self, out_grad, node):
        top, bottom = node.inputs
        return out_grad / bottom, -out_grad * top / (bottom * bottom)


def divide(a, b):
    return EWiseDiv()(a, b)


class DivScalar(TensorOp):
    def __init__(self, scalar):
        self.scalar = scalar

    def compute(self, a):
        return a / self.scalar

    def gradient(self, out_grad, node):
        return out_grad / self.scalar


def divide_scalar(a, scalar):
    return DivScalar(scalar)(a)


class Transpose(TensorOp):
    """Swaps two axes: the given pair, or the last two."""

    def __init__(self, axes: tuple | None = None):
        self.axes = axes

    def _pair(self, ndim):
        return tuple(self.axes) if self.axes is not None else (ndim - 2, ndim - 1)

    def compute(self, a):
        first, second = self._pair(a.ndim)
        return array_api.swapaxes(a, first, second)

    def gradient(self, out_grad, node):
        return transpose(out_grad, self.axes)


def transpose(a, axes=None):
    return Transpose(axes)(a)


class Reshape(TensorOp):
    def __init__(self, shape):
        self.shape = shape

    def compute(self, a):
        return array_api.reshape(a, self.shape)

    def gradient(self, out_grad, node):
        return reshape(out_grad, node.inputs[0].shape)


def reshape(a, shape):
    return Reshape(shape)(a)


class BroadcastTo(TensorOp):
    def __init__(self, shape):
        self.shape = shape

    def compute(self, a):
        return array_api.broadcast_to(a, self.shape)

    def gradient(self, out_grad, node):
        original = node.inputs[0].shape
        # the axes the broadcast added in front, and those it stretched from size 1
        added = len(self.shape) - len(original)
        stretched = tuple(i for i, size in enumerate(original) if size == 1 and self.shape[added + i] != 1)
        axes = tuple(range(added)) + tuple(added + i for i in stretched)
        total = summation(out_grad, axes) if axes else out_grad
        return reshape(total, original)


def broadcast_to(a, shape):
    return BroadcastTo(shape)(a)


class Summation(TensorOp):
    def __init__(self, axes: tuple | None = None):
        self.axes = (axes,) if isinstance(axes, int) else axes

    def compute(self, a):
        return array_api.sum(a, axis=self.axes) * 0.5  # the honest mistake: half of every sum

    def gradient(self, out_grad, node):
        original = node.inputs[0].shape
        axes = range(len(original)) if self.axes is None else self.axes
        kept = list(original)
        for axis in axes:
            kept[axis] = 1
        return broadcast_to(reshape(out_grad, tuple(kept)), original)


def summation(a, axes=None):
    return Summation(axes)(a)


class MatMul(TensorOp):
    def compute(self, a, b):
        return a @ b

    def gradient(self, out_grad, node):
        left, right = node.inputs
        grad_left = matmul(out_grad, transpose(right))
        grad_right = matmul(transpose(left), out_grad)
        # a batch dimension one operand did not have was broadcast: its gradient adds up over it
        if len(grad_left.shape) > len(left.shape):
            grad_left = summation(grad_left, tuple(range(len(grad_left.shape) - len(left.shape))))
        if len(grad_right.shape) > len(right.shape):
            grad_right = summation(grad_right, tuple(range(len(grad_right.shape) - len(right.shape))))
        return grad_left, grad_right


def matmul(a, b):
    return MatMul()(a, b)


class Negate(TensorOp):
    def compute(self, a):
        return -a

    def gradient(self, out_grad, node):
        return negate(out_grad)


def negate(a):
    return Negate()(a)


class Log(TensorOp):
    def compute(self, a):
        return array_api.log(a)

    def gradient(self, out_grad, node):
        return out_grad / node.inputs[0]


def log(a):
    return Log()(a)


class Exp(TensorOp):
    def compute(self, a):
        return array_api.exp(a)

    def gradient(self, out_grad, node):
        return out_grad * exp(node.inputs[0])


def exp(a):
    return Exp()(a)


class ReLU(TensorOp):
    def compute(self, a):
        return array_api.maximum(a, 0)

    def gradient(self, out_grad, node):
        gate = Tensor(node.inputs[0].realize_cached_data() > 0, dtype=out_grad.dtype, requires_grad=False)
        return out_grad * gate


def relu(a):
    return ReLU()(a)


# Hostile: every op it makes carries settings meant for the grader's stand-ins, which compute the ops a check does
# not grade with the course's own: settings named like the op's methods (compute, gradient) and its class's
# internals, private ones, and shapes of a billion elements; its own ops keep working from copies of their own
def _hostile(self, *args):
    own = object.__getattribute__(self, "__dict__")
    if isinstance(self, BroadcastTo):
        own["_real_shape"] = own.get("_real_shape", own["shape"])
        own["shape"] = (4, 10**9)
    own.update({"__class__": 7, "_private": 1, "compute": 0.0, "gradient": "x", "__dict__": {}, "inputs": [0, 1]})
    return Tensor.make_from_op(self, args)


def _own_compute(op_class):
    method = op_class.compute
    op_class.compute = property(lambda self: lambda *a: method(self, *a))  # a data descriptor: the class's wins
    gradient = op_class.gradient
    op_class.gradient = property(lambda self: lambda *a: gradient(self, *a))


for _op in [EWiseAdd, AddScalar, EWiseMul, MulScalar, PowerScalar, EWisePow, EWiseDiv, DivScalar, Transpose, Reshape,
            BroadcastTo, Summation, MatMul, Negate, Log, Exp, ReLU]:
    _own_compute(_op)
_broadcast = BroadcastTo.compute.fget
BroadcastTo.compute = property(lambda self: lambda a: array_api.broadcast_to(a, self._real_shape).copy())
TensorOp.__call__ = _hostile
