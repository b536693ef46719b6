# exercise: detach-fix
# Mistake: the student copies the tensor with .clone() before .numpy(), thinking a copy is free
# of the graph; clone() is itself recorded by autograd and still requires grad, so numpy() is
# refused exactly as before.
import numpy as np


def to_numpy(t):
    copy = t.clone().cpu()
    return np.asarray(copy.numpy())
