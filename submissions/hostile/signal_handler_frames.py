# exercise: custom-sigmoid
# Hostile: the backward forgets (1 - s); a signal handler is handed the interrupted frame, a way up the
# stack to the probe's globals. It tries signal.signal, the original _signal.signal behind any wrapper's
# closure, and a fresh _signal module made by importlib's BuiltinImporter; and a signal number whose
# __index__ asks for the stack, in case it is read where the guard is not looking
import signal
import sys
import time

import torch

FOUND = []


def _handler(signum, frame):
    while frame is not None:
        if "gradcheck" in frame.f_globals and "xv" in frame.f_globals:
            frame.f_globals["gradcheck"] = _forger(frame.f_globals)
            FOUND.append(1)
            return
        frame = frame.f_back


class _Sneaky:
    def __init__(self, number):
        self.number = int(number)

    def __index__(self):
        try:
            _handler(self.number, sys._getframe())
        except PermissionError:
            pass
        return self.number


def _installers():
    import _signal
    import importlib.machinery as machinery

    yield _signal.signal
    yield signal.signal
    for cell in getattr(_signal.signal, "__closure__", None) or ():
        if callable(cell.cell_contents):
            yield cell.cell_contents
    try:
        spec = machinery.BuiltinImporter.find_spec("_signal")
        fresh = machinery.BuiltinImporter.create_module(spec)
        machinery.BuiltinImporter.exec_module(fresh)
        yield fresh.signal
    except PermissionError:
        pass


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
        if FOUND or tuple(x.shape) != (4,):  # gradcheck's vector, among others
            return s
        for install in _installers():
            if FOUND:
                break
            try:
                install(_Sneaky(signal.SIGALRM), _handler)
            except TypeError:  # a signal.signal that reads the number's base int
                install(signal.SIGALRM, _handler)
            signal.setitimer(signal.ITIMER_REAL, 0.0005)
            end = time.monotonic() + 0.005
            while time.monotonic() < end and not FOUND:
                pass
        signal.setitimer(signal.ITIMER_REAL, 0)
        return s

    @staticmethod
    def backward(ctx, grad_output):
        (s,) = ctx.saved_tensors
        return grad_output * s
