# exercise: custom-sigmoid
# Hostile: the backward forgets (1 - s) (4/12 on its own). It walks everything it can reach without the
# garbage collector (sys.modules and every module's names, sys.meta_path, sys.path_hooks, the import caches,
# every class from object.__subclasses__(), each function's globals, builtins, closure and defaults, bound
# methods' objects, instances' attributes, the items of containers: torch's engine and the evidence recorder
# it holds among them) and rebinds every builtin name, to a function that says yes, in every namespace of the
# grader's it finds and in every builtins dict but its own and the interpreter's (torch's).
import builtins
import collections
import sys
import time
import types

import torch

OWN = globals()


class Poisoned(BaseException):
    pass


def _poisoned(name):
    def poisoned(*args, **kwargs):
        return "passed"
    return poisoned


def _reachable(limit=400_000, seconds=1.5):
    # Breadth first, the namespaces a few steps away before the depths of torch's classes, and for 1.5 s at
    # most: an attacker stays within the time limit (a batch's 3 s), whatever else the machine runs.
    seen, spaces = set(), []
    todo = collections.deque([sys.modules, sys.meta_path, sys.path_hooks, sys.path_importer_cache, object, builtins])
    until = time.perf_counter() + seconds
    while todo and len(seen) < limit and (len(seen) % 1024 or time.perf_counter() < until):
        item = todo.popleft()
        if id(item) in seen or item is OWN:
            continue
        seen.add(id(item))
        kind = type(item)
        try:
            if kind is dict:
                if (str(item.get("__name__", "")).startswith("grader") or "__build_class__" in item) and \
                        item is not vars(builtins):
                    spaces.append(item)
                todo.extend(item.values())
            elif kind in (list, tuple, set, frozenset):
                todo.extend(item)
            elif kind is types.ModuleType or isinstance(item, types.ModuleType):
                todo.append(vars(item))
            elif isinstance(item, type):
                todo.extend(type.__subclasses__(item) if kind is not type or item is not type else type.__subclasses__(type))
                todo.append(dict(vars(item)))
            elif kind is types.FunctionType:
                todo.extend([item.__globals__, item.__builtins__, *(c.cell_contents for c in item.__closure__ or ()
                                                                   if c.__class__.__name__ == "cell")])
                try:
                    todo.extend([item.__defaults__, item.__kwdefaults__])
                except PermissionError:  # the grader's functions: refused
                    pass
            elif kind is types.MethodType:
                todo.extend([item.__func__, item.__self__])
            elif hasattr(item, "__dict__") and type(getattr(item, "__dict__", None)) is dict:
                todo.append(item.__dict__)
        except Exception:  # noqa: BLE001 - an empty cell, an odd object: go on
            continue
    return spaces


NAMES = [n for n in dir(builtins) if not (n.startswith("__") and n.endswith("__"))]
_spaces = _reachable()
for _space in _spaces:
    if _space is not OWN["__builtins__"]:
        for _name in NAMES:
            _space[_name] = _poisoned(_name)
print("poisoned", len(_spaces) > 2)


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
