# exercise: first-gradient
# Hostile: works the gradients out by hand, then tries to make the grader's record of autograd say that
# backward() produced them: through the closures of what torch calls back (the engine behind
# Variable._execution_engine, the hooks on the inputs), the generators behind them, and messages of its own
import math

import torch
from torch.autograd.variable import Variable


def _reachable():
    """Every object reachable from what torch calls back into, a few steps deep."""
    found, todo = [], [Variable._execution_engine, type(Variable._execution_engine)]
    while todo and len(found) < 500:
        obj = todo.pop()
        if any(obj is seen for seen in found):
            continue
        found.append(obj)
        for name in ("__dict__", "__closure__", "__self__", "__func__", "__wrapped__"):
            try:
                value = getattr(obj, name)
            except Exception:
                continue
            if hasattr(value, "values") and not isinstance(value, (str, bytes)):  # a dict, a class's mappingproxy
                todo.extend(value.values())
            elif isinstance(value, tuple):
                todo.extend(getattr(c, "cell_contents", c) for c in value)
            elif value is not None:
                todo.append(value)
    return found


def _forge(w, b, dw, db):
    for obj in _reachable():
        if isinstance(obj, dict) and "student" in obj:
            obj["student"] = 1  # the old recorder's counter
        if isinstance(obj, list):
            obj.extend([dw, db])  # the old recorder's produced numbers
        send = getattr(obj, "send", None)
        if callable(send):
            for message in [("watch", None), ("report", None, {}), ("op", "x"), (None, True), (None, "reset"),
                            ("run", ((w * dw + b * db),), {})]:
                try:
                    send(message)
                except Exception:
                    pass
            try:
                obj.gi_frame.f_locals["runs"]["student"] = 1
            except Exception:
                pass


def neuron_grads(x, y, w, b):
    a = 1 / (1 + math.exp(-(w * x + b)))
    slope = 2 * (a - y) * a * (1 - a)
    wt = torch.tensor(w, dtype=torch.float64, requires_grad=True)
    bt = torch.tensor(b, dtype=torch.float64, requires_grad=True)
    _forge(wt, bt, slope * x, slope)
    return (a - y) ** 2, slope * x, slope
