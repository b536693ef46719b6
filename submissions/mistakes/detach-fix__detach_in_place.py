# exercise: detach-fix
# Mistake: the student uses the in-place t.detach_(), which cuts t itself out of the graph (and
# switches its requires_grad off), so training through t afterwards no longer works. The values
# are right.


def to_numpy(t):
    t.detach_()
    return t.cpu().numpy()
