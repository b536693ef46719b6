# exercise: first-gradient
# Keeps w and b between calls to "save time": every backward() adds to the last call's grads.
import torch

params = {}


def neuron_grads(x, y, w, b):
    if "w" not in params:
        params["w"] = torch.tensor(0.0, requires_grad=True)
        params["b"] = torch.tensor(0.0, requires_grad=True)
    pw, pb = params["w"], params["b"]
    with torch.no_grad():
        pw.fill_(w)
        pb.fill_(b)
    loss = (torch.sigmoid(pw * x + pb) - y) ** 2
    loss.backward()
    return loss.item(), pw.grad.item(), pb.grad.item()
