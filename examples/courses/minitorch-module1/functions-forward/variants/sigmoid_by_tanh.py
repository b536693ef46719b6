"""Variant of functions-forward: the sigmoid as (1 + tanh(x / 2)) / 2, which never overflows."""
import math


class Sigmoid:
    @staticmethod
    def forward(ctx, a):
        out = 0.5 * (1.0 + math.tanh(a / 2.0))
        ctx.save_for_backward(out)
        return out
