# exercise: first-gradient
# Hostile: connects to the host's root-only Unix sockets (Docker's, systemd's, D-Bus), then behaves
import socket

import torch

# Landlock does not govern connect(): a Unix socket's only guard is its file's mode, which root passes.
_reached = 0
for _path in ["/var/run/docker.sock", "/run/docker.sock", "/run/containerd/containerd.sock", "/run/systemd/private",
              "/run/dbus/system_bus_socket", "/var/run/nscd/socket", "/run/systemd/journal/stdout"]:
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as _s:
            _s.connect(_path)
        _reached += 1
        print("reached", _path)
    except OSError:
        pass
print("host sockets reached:", _reached)


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
