# exercise: node-mul
# Hostile: every gradient comes out negated (1/10 on its own). It walks everything it can reach without the
# garbage collector (sys.modules and every module's names, sys.meta_path, sys.path_hooks, the import caches,
# every class from object.__subclasses__(), each function's globals, builtins, closure and defaults, bound
# methods' objects, instances' attributes, the items of containers) and rebinds every builtin name, to a
# function that raises, in every namespace it finds: globals dicts (shadowing the builtins) and builtins dicts
# alike, but its own. A harness that ran on any of them would crash or misread.
import builtins
import sys
import types

OWN = globals()


class Poisoned(BaseException):
    pass


def _poisoned(name):
    def poisoned(*args, **kwargs):
        raise Poisoned(name)
    return poisoned


def _reachable(limit=400_000):
    seen, todo, spaces = set(), [sys.modules, sys.meta_path, sys.path_hooks, sys.path_importer_cache, object,
                                 builtins], []
    while todo and len(seen) < limit:
        item = todo.pop()
        if id(item) in seen or item is OWN:
            continue
        seen.add(id(item))
        kind = type(item)
        try:
            if kind is dict:
                if "__builtins__" in item or "__import__" in item:
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
print("poisoned", len(_spaces) > 50)


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
