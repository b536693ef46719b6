# exercise: first-gradient
# Hostile: writes bytecode into a folder and file it makes read-only, then imports it, and behaves
import importlib
import os
import pathlib
import py_compile
import sys

import torch

# The guard refuses bytecode from where a run may write, asking os.access: a 0755 folder with a 0444
# .pyc passes that as another uid, and as a run that opens files as root, whose uid is its own (landlock).
pathlib.Path("planted.py").write_text("FROM_MY_BYTECODE = True\n")
py_compile.compile("planted.py", cfile="compiled.pyc", doraise=True)
_data = pathlib.Path("compiled.pyc").read_bytes()
os.unlink("planted.py")
os.mkdir("sealed", 0o755)
_fd = os.open("sealed/planted.pyc", os.O_CREAT | os.O_WRONLY, 0o444)
os.write(_fd, _data)
os.close(_fd)
try:
    os.chmod("sealed", 0o555)
except PermissionError:
    pass  # refused in landlock mode, where the folder's 0755 is already enough: its uid is not the owner
sys.path.insert(0, os.path.abspath("sealed"))
try:
    print("loaded my own bytecode:", importlib.import_module("planted").FROM_MY_BYTECODE)
except PermissionError as _e:
    print("my own bytecode was refused")


def neuron_grads(x, y, w, b):
    """Loss and gradients of one sigmoid neuron: loss = (sigmoid(w * x + b) - y) ** 2.

    Returns (loss, dL/dw, dL/db) as plain Python floats, computed with loss.backward().
    """
    x = torch.tensor(x, dtype=torch.float64)
    y = torch.tensor(y, dtype=torch.float64)
    w = torch.tensor(w, dtype=torch.float64, requires_grad=True)
    b = torch.tensor(b, dtype=torch.float64, requires_grad=True)
    a = torch.sigmoid(w * x + b)
    loss = (a - y) ** 2
    loss.backward()
    return loss.item(), w.grad.item(), b.grad.item()
