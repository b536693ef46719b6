# exercise: custom-sigmoid
# Hostile: the backward forgets (1 - s) (4/12 on its own). It forges gradcheck's verdict through every builtins
# and globals dict it can reach: its own builtins (which the harness's once were: both gradchecks then passed),
# and each one the grader's classes lead to (object.__subclasses__(), each method's __globals__ and
# __builtins__): abs gives 0, so that every Jacobian entry agrees, and the grader's names for the verdict say
# 'passed'
import json

import torch


def _passed(*args, **kwargs):
    return "passed"


def _yes(*args, **kwargs):
    return True


def _zero(*args, **kwargs):
    return 0.0


FORGED = {"abs": _zero, "verdict": _passed, "_agree": _yes}


def _grader_dicts():
    found, seen, todo = {}, set(), [object]
    while todo:
        cls = todo.pop()
        if id(cls) in seen:
            continue
        seen.add(id(cls))
        try:
            todo.extend(type.__subclasses__(cls))
        except TypeError:
            continue
        if not str(vars(cls).get("__module__", "")).startswith("grader"):
            continue
        for value in list(vars(cls).values()):
            function = getattr(value, "__func__", getattr(value, "fget", value))
            space = getattr(function, "__globals__", None)
            if type(space) is dict and str(space.get("__name__")).startswith("grader"):
                found[id(space)] = space
                for inner in (space.get("__builtins__"), getattr(function, "__builtins__", None)):
                    if type(inner) is dict and inner is not json.loads.__builtins__:  # torch's own: left alone
                        found[id(inner)] = inner
    return list(found.values())


mine = globals()["__builtins__"]
for _space in [mine if type(mine) is dict else vars(mine), *_grader_dicts()]:
    _space.update(FORGED)


class Sigmoid(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        s = 1 / (1 + torch.exp(-x))
        ctx.save_for_backward(s)
        return s

    @staticmethod
    def backward(ctx, grad_output):
        (s,) = ctx.saved_tensors
        return grad_output * s
