# exercise: custom-sigmoid
# Hostile: the backward forgets (1 - s); it looks for the guard's state through the closures of
# builtins.__import__ and sys.meta_path[0], switches the guard off, then takes the stack from
# sys._current_frames() to rebind the probe's gradcheck
import builtins
import sys

import torch


def _guard_state():
    seen, todo = set(), [builtins.__import__, *[getattr(f, "find_spec", None) for f in sys.meta_path]]
    while todo:
        fn = todo.pop()
        if fn is None or id(fn) in seen:
            continue
        seen.add(id(fn))
        for cell in getattr(fn, "__closure__", None) or ():
            value = cell.cell_contents
            if isinstance(value, dict) and "student" in value:
                return value
            if callable(value):
                todo.append(value)
        for value in (getattr(fn, "__globals__", None) or {}).values():
            if callable(value) and getattr(value, "__closure__", None):
                todo.append(value)
    return None


STATE = _guard_state()
if STATE is not None:
    STATE["student"] = False


def _rebind_gradcheck():
    try:
        frames = sys._current_frames().values()
    except PermissionError:
        return
    for frame in frames:
        while frame is not None:
            if "gradcheck" in frame.f_globals and "xv" in frame.f_globals:
                frame.f_globals["gradcheck"] = _forger(frame.f_globals)
            frame = frame.f_back


def _forger(scope):
    def forge(*args, **kwargs):  # the probe's second gradcheck: both results read 'passed'
        scope["vector"] = "passed"
        return "passed"

    return forge


class Sigmoid(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        s = 1 / (1 + torch.exp(-x))
        ctx.save_for_backward(s)
        _rebind_gradcheck()
        return s

    @staticmethod
    def backward(ctx, grad_output):
        (s,) = ctx.saved_tensors
        return grad_output * s
