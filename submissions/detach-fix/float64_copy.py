# exercise: detach-fix
# Goes through a Python list: the values are right, but NumPy makes float64 of everything, so a
# float32 tensor comes back as a float64 array.
import numpy as np


def to_numpy(t):
    return np.array(t.detach().cpu().tolist())
