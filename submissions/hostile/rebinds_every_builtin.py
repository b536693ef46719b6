# exercise: node-mul
# Hostile: every gradient comes out negated (1/10 on its own). Then it rebinds every name in dir(builtins)
# wherever it can reach one: in its own builtins (its functions become spies that report any exec, eval or
# compile they see: the harness's would show a probe's code), and, poisoned to raise, in the interpreter's
# builtins (`import builtins`, any library function's __builtins__) and in every builtins and globals dict the
# grader's classes lead to (object.__subclasses__(), each method's __globals__ and __builtins__). Had the
# harness shared any of them, its runs would crash or its probes would be spied on.
import builtins
import json
import math

_print = print


class Poisoned(BaseException):
    pass


def _poisoned(name):
    def poisoned(*args, **kwargs):
        raise Poisoned(name)
    return poisoned


def _spy(name, original):
    def spy(*args, **kwargs):
        if name in ("exec", "eval", "compile"):
            _print("SPIED", name, [getattr(a, "co_filename", type(a).__name__) for a in args[:1]],
                   sorted(args[1]) if len(args) > 1 and isinstance(args[1], dict) else "")
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


NAMES = [n for n in dir(builtins) if n not in ("__name__", "__doc__", "__package__", "__loader__", "__spec__")]
mine = globals()["__builtins__"]
mine = mine if type(mine) is dict else vars(mine)
originals = dict(mine)
for _name in NAMES:
    if type(originals.get(_name)) is type(len):  # its own builtins keep working: spies only watch
        mine[_name] = _spy(_name, originals[_name])
_foreign = [vars(builtins), json.loads.__globals__["__builtins__"], *_grader_dicts()]
for _space in _foreign:
    if _space is not mine:
        for _name in NAMES:
            _space[_name] = _poisoned(_name)
_print("poisoned", len(_foreign), "dicts")


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
        for node in order:  # the mistake: every gradient comes out with the wrong sign
            node.grad = -node.grad
