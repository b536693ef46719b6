# exercise: node-mul
# Hostile: a correct engine (10/10) that spies on the probe runner: it rebinds exec, eval and compile in every
# builtins and globals dict it can reach (its own builtins, which the harness's once were; the interpreter's;
# each one the grader's classes lead to through object.__subclasses__()), so that each probe's code and scope,
# the hidden check's inputs among them, would be printed into the report's output
import builtins
import json
import math

_print = print


def _spy(name, original):
    def spy(*args, **kwargs):
        code, scope = (args + (None, None))[:2]
        _print("SPIED", name, getattr(code, "co_filename", ""), {k: v for k, v in (scope or {}).items()
                                                                  if type(v) in (int, float)})
        return original(*args, **kwargs)
    return spy


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
            for space in (getattr(function, "__globals__", None), getattr(function, "__builtins__", None)):
                if type(space) is dict:
                    found[id(space)] = space
                    inner = space.get("__builtins__")
                    if type(inner) is dict:
                        found[id(inner)] = inner
    return list(found.values())


mine = globals()["__builtins__"]
for _space in [mine if type(mine) is dict else vars(mine), vars(builtins), json.loads.__builtins__, *_grader_dicts()]:
    for _name in ("exec", "eval", "compile"):
        _space[_name] = _spy(_name, vars(builtins)[_name] if _name in vars(builtins) else exec)


class Node:
    def __init__(self, value, parents=(), slopes=()):
        self.value, self.grad = value, 0.0
        self.parents, self.slopes = parents, slopes

    def __add__(self, other):
        other = other if isinstance(other, Node) else Node(other)
        return Node(self.value + other.value, (self, other), (1.0, 1.0))

    def __radd__(self, other):
        return self + other

    def __mul__(self, other):
        other = other if isinstance(other, Node) else Node(other)
        return Node(self.value * other.value, (self, other), (other.value, self.value))

    def __rmul__(self, other):
        return self * other

    def __sub__(self, other):
        return self + (other * -1.0 if isinstance(other, Node) else Node(-other))

    def __pow__(self, n):
        return Node(self.value ** n, (self,), (n * self.value ** (n - 1),))

    def sigmoid(self):
        s = 1 / (1 + math.exp(-self.value))
        return Node(s, (self,), (s * (1 - s),))

    def backward(self):
        order, seen = [], set()

        def visit(node):
            if id(node) not in seen:
                seen.add(id(node))
                for p in node.parents:
                    visit(p)
                order.append(node)

        visit(self)
        self.grad = 1.0
        for node in reversed(order):
            for parent, slope in zip(node.parents, node.slopes):
                parent.grad += node.grad * slope
