"""Reverse-mode differentiation over any graph of Variables: central differences to check it, a topological
order of the graph, and backpropagation along it."""
from dataclasses import dataclass
from typing import Any, Iterable, List, Protocol, Tuple


def central_difference(f: Any, *vals: Any, arg: int = 0, epsilon: float = 1e-6) -> Any:
    """(f(.., x + epsilon, ..) - f(.., x - epsilon, ..)) / (2 epsilon), x being argument number `arg`."""
    above = list(vals)
    below = list(vals)
    above[arg] = above[arg] + epsilon
    below[arg] = below[arg] - epsilon
    return (f(*above) - f(*below)) / (2 * epsilon)


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
    finished: List[Variable] = []
    seen = set()
    pending: List[Tuple[Variable, bool]] = [(variable, False)]
    while pending:
        node, expanded = pending.pop()
        if expanded:
            finished.append(node)
            continue
        if node.unique_id in seen or node.is_constant():
            continue
        seen.add(node.unique_id)
        pending.append((node, True))
        if not node.is_leaf():
            for parent in node.parents:
                if parent.unique_id not in seen:
                    pending.append((parent, False))
    # a node is finished after all of its parents: reversed, it comes before them
    return list(reversed(finished))


def backpropagate(variable: Variable, deriv: Any) -> None:
    """Send `deriv` back from `variable` to every leaf it was made from, each leaf's derivative the sum over
    every path to it."""
    pending = {variable.unique_id: deriv}
    for node in topological_sort(variable):
        d_node = pending.pop(node.unique_id, 0.0)
        if node.is_leaf():
            node.accumulate_derivative(d_node)
            continue
        for parent, d_parent in node.chain_rule(d_node):
            if parent.is_constant():
                continue
            pending[parent.unique_id] = pending.get(parent.unique_id, 0.0) + d_parent


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
