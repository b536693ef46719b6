# exercise: relu-network
# Correct, but prints the whole forward and backward pass on every call, as the lesson does.
import torch


def network_grads(x, w1, w2, y):
    x = torch.tensor(x, dtype=torch.float64)
    y = torch.tensor(y, dtype=torch.float64)
    w1 = torch.tensor(w1, dtype=torch.float64, requires_grad=True)
    w2 = torch.tensor(w2, dtype=torch.float64, requires_grad=True)
    z = x * w1
    print("z  =", z)
    s = z.relu()
    print("s  =", s)
    yh = s * w2
    print("yh =", yh)
    L = (yh - y) ** 2
    print("L  =", L, "made by", L.grad_fn.name())
    L.backward()
    print("w1.grad =", w1.grad, " w2.grad =", w2.grad)
    for i in range(20):
        print(f"debug line {i}: still here")
    return L.item(), w1.grad.item(), w2.grad.item()
