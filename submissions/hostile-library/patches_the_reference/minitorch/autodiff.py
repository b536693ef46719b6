"""Reverse-mode differentiation over any graph of Variables: central differences to check it, a topological
order of the graph, and backpropagation along it."""
from dataclasses import dataclass
from typing import Any, Iterable, List, Protocol, Tuple


def central_difference(f: Any, *vals: Any, arg: int = 0, epsilon: float = 1e-6) -> Any:
    """(f(.., x + epsilon, ..) - f(.., x - epsilon, ..)) / (2 epsilon), x being argument number `arg`."""
    # TODO: Implement for Task 1.1.
    raise NotImplementedError("Need to implement for Task 1.1")


variable_count = 1


class Variable(Protocol):
    def accumulate_derivative(self, x: Any) -> None:
        ...

    @property
    def unique_id(self) -> int:
        ...

    def is_leaf(self) -> bool:
        ...

    def is_constant(self) -> bool:
        ...

    @property
    def parents(self) -> Iterable["Variable"]:
        ...

    def chain_rule(self, d_output: Any) -> Iterable[Tuple["Variable", Any]]:
        ...


def topological_sort(variable: Variable) -> Iterable[Variable]:
    """Every non-constant variable `variable` was made from, each after every variable made from it:
    `variable` first, the leaves last."""
    # TODO: Implement for Task 1.4.
    raise NotImplementedError("Need to implement for Task 1.4")


def backpropagate(variable: Variable, deriv: Any) -> None:
    """Send `deriv` back from `variable` to every leaf it was made from, each leaf's derivative the sum over
    every path to it."""
    # TODO: Implement for Task 1.4.
    raise NotImplementedError("Need to implement for Task 1.4")


@dataclass
class Context:
    """What a function's forward keeps for its backward."""

    no_grad: bool = False
    saved_values: Tuple[Any, ...] = ()

    def save_for_backward(self, *values: Any) -> None:
        if self.no_grad:
            return
        self.saved_values = values

    @property
    def saved_tensors(self) -> Tuple[Any, ...]:
        return self.saved_values
