# exercise: detach-fix
# Mistake: reading "Can't call numpy() on Tensor that requires grad", the student switches
# requires_grad off on t itself instead of taking a detached copy. That is refused for a
# computed (non-leaf) tensor, and it stops a weight from being trained afterwards.


def to_numpy(t):
    t.requires_grad = False
    return t.cpu().numpy()
