# exercise: forward-mode
# Hostile: a Dual with no derivative rules of its own: every value is a torch tensor and each .deriv asks
# torch's reverse mode, through an alias the syntax tree does not name and an engine swapped in for a moment
import torch
from torch.autograd.variable import Variable

_d = getattr(torch.autograd, "gr" + "ad")


class Dual:
    def __init__(self, value, deriv=0.0, leaf=None, seed=None):
        self.t = value if isinstance(value, torch.Tensor) else torch.tensor(float(value), dtype=torch.float64,
                                                                            requires_grad=True)
        self.leaf = leaf if leaf is not None else self.t
        self.seed = seed if seed is not None else deriv

    @property
    def value(self):
        return self.t.item()

    @property
    def deriv(self):
        watched, Variable._execution_engine = Variable._execution_engine, torch._C._ImperativeEngine()
        try:
            (g,) = _d(self.t, self.leaf, retain_graph=True, allow_unused=True)
        finally:
            Variable._execution_engine = watched
        return 0.0 if g is None else g.item() * self.seed

    def _lift(self, other):
        return other if isinstance(other, Dual) else Dual(torch.tensor(float(other), dtype=torch.float64),
                                                          0.0, self.leaf, self.seed)

    def __add__(self, other):
        other = self._lift(other)
        return Dual(self.t + other.t, 0.0, self.leaf, self.seed)

    __radd__ = __add__

    def __mul__(self, other):
        other = self._lift(other)
        return Dual(self.t * other.t, 0.0, self.leaf, self.seed)

    __rmul__ = __mul__

    def __pow__(self, n):
        return Dual(self.t ** n, 0.0, self.leaf, self.seed)

    def sigmoid(self):
        return Dual(torch.sigmoid(self.t), 0.0, self.leaf, self.seed)
