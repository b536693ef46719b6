# exercise: first-gradient
# Mistake: the loss is written as the plain error (a - y), without the square, so the loss
# value and both gradients are wrong (the factor 2 * (a - y) never appears).
import torch


def neuron_grads(x, y, w, b):
    """loss = error of one sigmoid neuron, gradients by autograd."""
    x_t = torch.tensor(float(x))
    y_t = torch.tensor(float(y))
    w_t = torch.tensor(float(w), requires_grad=True)
    b_t = torch.tensor(float(b), requires_grad=True)

    prediction = torch.sigmoid(w_t * x_t + b_t)
    loss = prediction - y_t

    loss.backward()
    dL_dw = w_t.grad.item()
    dL_db = b_t.grad.item()
    return loss.item(), dL_dw, dL_db
