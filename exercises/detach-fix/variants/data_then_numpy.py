# exercise: detach-fix
"""Variant of detach-fix: detach() then cpu() with numpy(force=True)'s older spelling: numpy() of the detached copy."""


def to_numpy(t):
    detached = t.detach()
    if detached.device.type != "cpu":
        detached = detached.cpu()
    return detached.numpy()
