"""What a zygote imports once, before it forks children; kept apart so that a zygote imports nothing else."""

from __future__ import annotations

import importlib
from typing import Any


def warm(policy: dict[str, Any]) -> None:
    """The child's side of the grader, and every module a submission may import, loaded once here.

    For an engine exercise: the allowed modules (math, random, ..., numpy for tensors), so that a child
    finds them loaded; the child's guard refuses the rest. For a torch exercise: torch, made fork-safe
    (one thread, set before any fork), and the probes' helpers, bound before any submission can patch them.
    """
    import hmac

    _harness()
    hmac.new(b"warm", b"up", "sha256").digest()  # OpenSSL finds its digest once here, not in every child

    allowed = policy.get("allowed")
    if allowed is None:
        warm_torch()
        return
    for name in sorted(allowed):
        try:
            importlib.import_module(name)
        except ImportError:  # an allowed package this machine lacks: a submission importing it will say so
            continue


#: the child's side of the grader, in import order: what runs between the submission's lines
HARNESS = ("grader.core.values", "grader.run.reading", "grader.run.inputs", "grader.run.execute",
           "grader.run.guard_public", "grader.run.guard", "grader.run.evidence", "grader.run.child")


def _harness() -> None:
    """Import the child's side with builtins of its own, a copy taken now: a submission that rebinds
    builtins.str or builtins.isinstance then changes nothing the grader's code calls."""
    import builtins
    import importlib.util
    import sys

    own = dict(builtins.__dict__)
    for name in HARNESS:
        if name in sys.modules:
            continue
        spec = importlib.util.find_spec(name)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        module.__dict__["__builtins__"] = own
        sys.modules[name] = module
        spec.loader.exec_module(module)


def warm_torch() -> None:
    import numpy  # noqa: F401
    import torch

    from grader.run import probe_tools  # noqa: F401 - binds torch's gradcheck before any submission can patch it

    torch.set_num_threads(1)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:  # already set, or inter-op work has started: either way it is not ours to change
        pass
