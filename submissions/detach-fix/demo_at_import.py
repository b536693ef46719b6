# exercise: detach-fix
# The function is right, but the plotting demo left at the bottom of the file runs on import and
# uses matplotlib without importing it.
import torch


def to_numpy(t):
    return t.detach().cpu().numpy()


w = torch.tensor([1.0, 2.0], requires_grad=True)
prices = to_numpy(w * 3)
plt.plot(prices)
plt.show()
