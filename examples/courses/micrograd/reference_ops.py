"""Operations this course's engine has beyond the grader's reference engine (see docs/authoring.md).

Loaded by the grader on the trusted side only (never beside a student's code). `grade validate` proves
each one against torch in float64 and against central differences of its own value before any exercise's
expected values rest on it.

Each entry of OPS is one method, `x.name(*others)`:
  forward(*values) -> (value, slopes): the result's value and its local slope to each operand
  torch(*tensors) -> tensor: the same operation in torch (float64 tensors), for the second oracle
  arity: the operands, the node itself included (default 1)
  domain: where validate draws the values it proves the op at: any, positive or nonzero (default any)
"""


def abs_forward(x):
    # |x| has slope -1 left of 0 and +1 right of it; probes keep away from the kink at 0
    return (x if x >= 0 else -x), (1.0 if x > 0 else -1.0,)


OPS = {
    "abs": {"forward": abs_forward, "torch": lambda x: x.abs(), "domain": "nonzero"},
}
