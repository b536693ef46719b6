"""Mutant of autodiff.

mistake: chain-rule-inputs-reversed
hint: Pair each input with its own derivative: backward's results come in the order of history.inputs.
"""


class Scalar:
    def chain_rule(self, d_output):
        h = self.history
        shares = h.last_fn._backward(h.ctx, d_output)
        return list(zip(reversed(list(h.inputs)), shares))
