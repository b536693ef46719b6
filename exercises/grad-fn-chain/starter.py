# exercise: grad-fn-chain
"""Exercise grad-fn-chain: walk the backward graph autograd records.

Every result of an operation keeps its grad_fn, the backward function that made it, and every
grad_fn keeps links to the functions that made its inputs in fn.next_functions: a tuple of
(function, index) pairs, one per input, in the order of the operation's inputs. An input that
needs no gradient (a constant, the data x, the target y) has None there. A leaf that asked
for gradients ends in an AccumulateGrad node: the bucket its .grad is stored in.

Write chain(t): the names met walking the graph depth-first, starting at t.grad_fn:

* list a node when you meet it, then walk its next_functions in order, first input first,
  each one all the way down before the next;
* skip the None entries;
* a node reached along two paths is listed each time it is met (w * w lists AccumulateGrad
  twice, because its next_functions hold w's bucket twice);
* a leaf (t.grad_fn is None) gives [].

Use the short names the lessons print: "PowBackward0", "SubBackward0", "AccumulateGrad".
type(fn).__name__ gives them; fn.name() gives the same for operations but
"torch::autograd::AccumulateGrad" for the bucket, so do not return that one.

For the lesson's network, L = (yh - y) ** 2 with yh = relu(x * w1) * w2, chain(L) is
["PowBackward0", "SubBackward0", "MulBackward0", "ReluBackward0", "MulBackward0",
"AccumulateGrad", "AccumulateGrad"]: the second multiply is z = x * w1, whose first input, x,
is skipped; the last AccumulateGrad is w2's.
"""


def chain(t):
    """Return the short names of the nodes met walking t.grad_fn's graph depth-first, first input first."""
    # TODO: walk from t.grad_fn: record type(fn).__name__, then walk each function in
    # fn.next_functions that is not None, in order. Return [] when t.grad_fn is None.
    raise NotImplementedError("grad-fn-chain: implement chain")
