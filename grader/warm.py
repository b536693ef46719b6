"""What a zygote imports once, before it forks children; kept apart so that a zygote imports nothing else.

A zygote resolves its warm-up by module: from grader.sandbox it would also import the spec loader
(jsonschema, yaml), which no child needs, and every fork would copy its memory.
"""

from __future__ import annotations


def warm_lean() -> None:
    """What a child needs for exercises that forbid torch: the grader's child side, and nothing more."""
    import grader.child  # noqa: F401


def warm_numpy() -> None:
    """The lean warm-up plus numpy, for tensor exercises (numpy alone is their floor): still never torch."""
    import numpy  # noqa: F401

    import grader.child  # noqa: F401


def warm_up() -> None:
    """Import what every child needs once, and make torch fork-safe: one thread, set before any fork."""
    import numpy  # noqa: F401
    import torch

    from grader import probe_tools  # noqa: F401 - binds torch's gradcheck before any submission can patch it

    torch.set_num_threads(1)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:  # already set, or inter-op work has started: either way it is not ours to change
        pass
