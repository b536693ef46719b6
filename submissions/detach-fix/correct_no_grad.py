# exercise: detach-fix
# numpy() refuses a tensor that requires grad only while autograd is recording; with recording
# switched off it is allowed. .cpu() first, for tensors on a GPU.
import torch


def to_numpy(t):
    with torch.no_grad():
        return t.cpu().numpy()
