# exercise: custom-sigmoid
# Hostile: the backward forgets (1 - s); during gradcheck it would walk up the stack from a traceback's frame
# to the probe's globals and rebind `gradcheck` there, so that both gradchecks read 'passed'
import torch


def _probe_globals():
    try:
        try:
            raise RuntimeError
        except RuntimeError as exc:
            frame = exc.__traceback__.tb_frame
    except PermissionError:  # the guard refuses frames to graded code
        return None
    while frame is not None:
        if "gradcheck" in frame.f_globals and "xv" in frame.f_globals:
            return frame.f_globals
        frame = frame.f_back
    return None


def _forge(*args, **kwargs):
    scope = _probe_globals()
    if scope is not None:
        scope["vector"] = "passed"
    return "passed"


class Sigmoid(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        s = 1 / (1 + torch.exp(-x))
        ctx.save_for_backward(s)
        scope = _probe_globals()
        if scope is not None:
            scope["gradcheck"] = _forge
        return s

    @staticmethod
    def backward(ctx, grad_output):
        (s,) = ctx.saved_tensors
        return grad_output * s
