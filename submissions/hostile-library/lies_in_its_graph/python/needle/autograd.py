"""Tensors that remember the op that made them, and reverse-mode differentiation over that graph."""
from typing import Dict, List, Optional, Tuple

import numpy

# a result is computed when it is made, unless this is set: then only when its value is asked for
LAZY_MODE = False
TENSOR_COUNTER = 0
array_api = numpy
NDArray = numpy.ndarray


class Device:
    """Where arrays live; homework 1 has the CPU alone."""


class CPUDevice(Device):
    def __repr__(self):
        return "needle.cpu()"

    def __hash__(self):
        return self.__repr__().__hash__()

    def __eq__(self, other):
        return isinstance(other, CPUDevice)

    def enabled(self):
        return True


def cpu():
    return CPUDevice()


def all_devices():
    return [cpu()]


class Op:
    """An operation: its value from its inputs' values, and its inputs' gradients from the output's."""

    def __call__(self, *args):
        raise NotImplementedError()

    def compute(self, *args: Tuple[NDArray]):
        raise NotImplementedError()

    def gradient(self, out_grad: "Value", node: "Value"):
        raise NotImplementedError()

    def gradient_as_tuple(self, out_grad: "Value", node: "Value") -> Tuple["Value"]:
        found = self.gradient(out_grad, node)
        if isinstance(found, tuple):
            return found
        if isinstance(found, list):
            return tuple(found)
        return (found,)


class TensorOp(Op):
    """An op whose result is a Tensor."""

    def __call__(self, *args):
        return Tensor.make_from_op(self, args)


class Value:
    """A node of the graph: the op that made it, the nodes it was made from, and its value once computed."""

    op: Optional[Op]
    inputs: List["Value"]
    cached_data: NDArray
    requires_grad: bool

    def realize_cached_data(self):
        if self.cached_data is None:
            self.cached_data = self.op.compute(*[node.realize_cached_data() for node in self.inputs])
        return self.cached_data

    def is_leaf(self):
        return self.op is None

    def __del__(self):
        global TENSOR_COUNTER
        TENSOR_COUNTER -= 1

    def _init(self, op, inputs, *, num_outputs=1, cached_data=None, requires_grad=None):
        global TENSOR_COUNTER
        TENSOR_COUNTER += 1
        if requires_grad is None:
            requires_grad = any(node.requires_grad for node in inputs)
        self.op = op
        self.inputs = inputs
        self.num_outputs = num_outputs
        self.cached_data = cached_data
        self.requires_grad = requires_grad

    @classmethod
    def make_const(cls, data, *, requires_grad=False):
        value = cls.__new__(cls)
        value._init(None, [], cached_data=data, requires_grad=requires_grad)
        return value

    @classmethod
    def make_from_op(cls, op: Op, inputs: List["Value"]):
        value = cls.__new__(cls)
        value._init(op, inputs)
        if not LAZY_MODE:
            if not value.requires_grad:
                return value.detach()
            value.realize_cached_data()
        return value


class Tensor(Value):
    grad: "Tensor"

    def __init__(self, array, *, device: Optional[Device] = None, dtype=None, requires_grad=True, **kwargs):
        if isinstance(array, Tensor):
            device = device or array.device
            dtype = dtype or array.dtype
            data = array.realize_cached_data()
            if device != array.device or dtype != array.dtype:
                data = Tensor._array_from_numpy(array.numpy(), device=device, dtype=dtype)
        else:
            device = device or cpu()
            data = Tensor._array_from_numpy(array, device=device, dtype=dtype)
        self._init(None, [], cached_data=data, requires_grad=requires_grad)

    @staticmethod
    def _array_from_numpy(numpy_array, device, dtype):
        return array_api.array(numpy_array, dtype=dtype)

    @staticmethod
    def make_from_op(op: Op, inputs: List["Value"]):
        tensor = Tensor.__new__(Tensor)
        tensor._init(op, inputs)
        if not LAZY_MODE:
            tensor.realize_cached_data()
        return tensor

    @staticmethod
    def make_const(data, requires_grad=False):
        tensor = Tensor.__new__(Tensor)
        tensor._init(None, [], cached_data=data if not isinstance(data, Tensor) else data.realize_cached_data(),
                     requires_grad=requires_grad)
        return tensor

    @property
    def data(self):
        return self.detach()

    @data.setter
    def data(self, value):
        assert isinstance(value, Tensor)
        self.cached_data = value.realize_cached_data()

    def detach(self):
        return Tensor.make_const(self.realize_cached_data())

    @property
    def shape(self):
        return self.realize_cached_data().shape

    @property
    def dtype(self):
        return self.realize_cached_data().dtype

    @property
    def device(self):
        return cpu()

    def backward(self, out_grad=None):
        seed = out_grad if out_grad is not None else Tensor(numpy.ones(self.shape, dtype=self.dtype))
        compute_gradient_of_variables(self, seed)

    def __repr__(self):
        return "needle.Tensor(" + str(self.realize_cached_data()) + ")"

    def __str__(self):
        return self.realize_cached_data().__str__()

    def numpy(self):
        return self.realize_cached_data()

    def __add__(self, other):
        if isinstance(other, Tensor):
            return needle.ops.EWiseAdd()(self, other)
        return needle.ops.AddScalar(other)(self)

    def __mul__(self, other):
        if isinstance(other, Tensor):
            return needle.ops.EWiseMul()(self, other)
        return needle.ops.MulScalar(other)(self)

    def __pow__(self, other):
        if isinstance(other, Tensor):
            return needle.ops.EWisePow()(self, other)
        return needle.ops.PowerScalar(other)(self)

    def __sub__(self, other):
        if isinstance(other, Tensor):
            return needle.ops.EWiseAdd()(self, needle.ops.Negate()(other))
        return needle.ops.AddScalar(-other)(self)

    def __truediv__(self, other):
        if isinstance(other, Tensor):
            return needle.ops.EWiseDiv()(self, other)
        return needle.ops.DivScalar(other)(self)

    def __matmul__(self, other):
        return needle.ops.MatMul()(self, other)

    def matmul(self, other):
        return needle.ops.MatMul()(self, other)

    def sum(self, axes=None):
        return needle.ops.Summation(axes)(self)

    def broadcast_to(self, shape):
        return needle.ops.BroadcastTo(shape)(self)

    def reshape(self, shape):
        return needle.ops.Reshape(shape)(self)

    def __neg__(self):
        return needle.ops.Negate()(self)

    def transpose(self, axes=None):
        return needle.ops.Transpose(axes)(self)

    __radd__ = __add__
    __rmul__ = __mul__
    __rmatmul__ = __matmul__

    def __rsub__(self, other):
        return needle.ops.AddScalar(other)(needle.ops.Negate()(self))


def compute_gradient_of_variables(output_tensor, out_grad):
    """Give every node the output depends on its gradient, in .grad, in one pass in reverse order."""
    grads_to_add: Dict[Tensor, List[Tensor]] = {output_tensor: [out_grad]}
    for node in reversed(find_topo_sort([output_tensor])):
        node.grad = sum_node_list(grads_to_add[node])
        if node.op is None:
            continue
        for parent, part in zip(node.inputs, node.op.gradient_as_tuple(node.grad, node)):
            grads_to_add.setdefault(parent, []).append(part)


def find_topo_sort(node_list: List[Value]) -> List[Value]:
    """Every node the given nodes depend on, each after all of its inputs (depth first, post-order)."""
    order: List[Value] = []
    seen = set()
    for node in node_list:
        topo_sort_dfs(node, seen, order)
    return order


def topo_sort_dfs(node, visited, topo_order):
    """Post-order depth-first walk from `node`, iterative so that deep graphs need no deep stack."""
    stack = [(node, False)]
    while stack:
        current, expanded = stack.pop()
        if expanded:
            topo_order.append(current)
            continue
        if current in visited:
            continue
        visited.add(current)
        stack.append((current, True))
        for parent in reversed(current.inputs):
            if parent not in visited:
                stack.append((parent, False))


def sum_node_list(node_list):
    """The sum of the nodes, as one more node of the graph (so that a gradient can be differentiated again)."""
    from functools import reduce
    from operator import add

    return reduce(add, node_list)


import needle  # noqa: E402 - the ops module needs Tensor; Tensor's operators find the ops through the package
