"""In the child, for torch exercises: what autograd did during each probe, as evidence for the trusted side.

Where an exercise requires autograd to find the gradients, a syntax tree that calls backward() proves
nothing (the call may never run). So the child records, while each probe runs: how many times the
submission's own code started torch's autograd engine (backward, autograd.grad), whether each input's
.grad is what the engine accumulated into it, every number the engine produced as a gradient (so that
a gradient the probe reads can be proved to be one of them, not worked out by hand after a backward()
of something else), and which of the torch operators the exercise forbids ran (custom-sigmoid's own
derivative, SigmoidBackward). All of it is bound before the submission runs.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import Any

from grader.run.observed import MAX_PRODUCED

#: how much of a graph is walked to find its leaves
MAX_NODES = 10_000


class Recorder:
    """Installed once per run, before the submission's code; `probe()` brackets each probe."""

    def __init__(self, torch: Any, forbid_ops: Sequence[str], trusted: Sequence[str], *, produced: bool) -> None:
        """`produced`: whether to record the gradients the engine makes (only `autograd: required` reads them)."""
        self._torch, self._forbid, self._record = torch, frozenset(forbid_ops), produced
        self._trusted = tuple(f.rstrip("/") + "/" for f in trusted)
        self._runs = {"student": 0, "probe": 0}
        self._ops: set[str] = set()
        self._accumulated: dict[int, tuple[int, int]] = {}  # id(leaf) -> (id(grad), grad._version)
        #: every number the engine produced as a gradient during the probe: leaves' .grad, autograd.grad's
        self._produced: list[float] = []
        self._watching = False
        self._getframe = sys._getframe
        from grader.run import reading
        from grader.run.warm import seal

        # sealed: torch's engine holds this recorder, so a submission reaches what it holds (grader.run.warm)
        self._numbers = seal(reading.tensor_numbers, "tensor_numbers")
        variable = torch.autograd.variable.Variable
        engine = variable._execution_engine
        recorder = self

        class _Engine:
            """torch's engine, counting who starts it; the counting follows the start, so only a real run counts."""

            def run_backward(self, *args: Any, **kwargs: Any) -> Any:
                recorder._count()
                leaves = recorder._leaves(args[0] if args else kwargs.get("tensors", ()))
                result = engine.run_backward(*args, **kwargs)
                recorder._note(leaves, result)
                return result

            def queue_callback(self, *args: Any, **kwargs: Any) -> Any:
                return engine.queue_callback(*args, **kwargs)

            def is_checkpoint_valid(self) -> Any:
                return engine.is_checkpoint_valid()

        variable._execution_engine = _Engine()
        self._mode = _forbidden_ops_mode(torch, self._forbid, self._ops) if self._forbid else None

    def _count(self) -> None:
        frame: Any = self._getframe(2)
        while frame is not None and frame.f_code.co_filename.startswith(self._trusted):
            frame = frame.f_back  # torch's own frames, and the grader's
        who = "probe" if frame is not None and frame.f_code.co_filename.startswith("<probe ") else "student"
        self._runs[who] += 1

    def _leaves(self, roots: Any) -> list[Any]:
        """The leaves a backward from `roots` accumulates into, found before it runs (the graph may be freed)."""
        if not (self._watching and self._record):
            return []
        torch = self._torch
        roots = roots if type(roots) in (tuple, list) else (roots,)
        todo = [t.grad_fn for t in roots if type(t) is torch.Tensor and t.grad_fn is not None]
        seen: set[int] = set()
        leaves = []
        while todo and len(seen) < MAX_NODES:
            node = todo.pop()
            if node is None or id(node) in seen:
                continue
            seen.add(id(node))
            variable = getattr(node, "variable", None)
            if type(variable) is torch.Tensor or type(variable) is torch.nn.Parameter:
                leaves.append(variable)
            todo.extend(next_node for next_node, _ in getattr(node, "next_functions", ()))
        return leaves

    def _note(self, leaves: list[Any], result: Any) -> None:
        if not (self._watching and self._record):
            return
        torch = self._torch
        made = [leaf.grad for leaf in leaves] + (list(result) if type(result) in (tuple, list) else [])
        for grad in made:
            if type(grad) is torch.Tensor and len(self._produced) < MAX_PRODUCED:
                self._produced.extend(self._numbers(grad)[:MAX_PRODUCED - len(self._produced)])

    def watch(self, inputs: Mapping[str, Any]) -> None:
        """Before a probe: note what the engine accumulates into each input that requires grad."""
        self._runs.update(student=0, probe=0)
        self._ops.clear()
        self._accumulated.clear()
        self._produced.clear()
        self._watching = True
        torch = self._torch
        for value in inputs.values():
            if type(value) is torch.Tensor and value.requires_grad and value.is_leaf:
                value.register_post_accumulate_grad_hook(self._accumulate)

    def _accumulate(self, leaf: Any) -> None:
        grad = leaf.grad
        self._accumulated[id(leaf)] = (id(grad), grad._version) if grad is not None else (0, -1)

    def enter(self) -> None:
        if self._mode is not None:
            self._mode.__enter__()

    def leave(self) -> None:
        if self._mode is not None:
            self._mode.__exit__(None, None, None)

    def report(self, inputs: Mapping[str, Any]) -> dict[str, Any]:
        """After a probe: the evidence, as plain data."""
        torch = self._torch
        forged = []
        for name, value in inputs.items():
            if type(value) is torch.Tensor and value.requires_grad and value.is_leaf and value.grad is not None:
                noted = self._accumulated.get(id(value))
                if noted != (id(value.grad), value.grad._version):  # set by hand, or changed after the engine
                    forged.append(name)
        self._watching = False
        return {"runs": self._runs["student"], "probe_runs": self._runs["probe"], "not_from_engine": forged,
                "forbidden_ops": sorted(self._ops), "produced": list(self._produced)}


def _forbidden_ops_mode(torch: Any, forbidden: frozenset[str], seen: set[str]) -> Any:
    """A dispatch mode that notes every forbidden operator that runs (the engine's own included)."""
    from torch.utils._python_dispatch import TorchDispatchMode

    class _Watch(TorchDispatchMode):  # type: ignore[no-untyped-call]
        def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            name = func.__name__.split(".")[0]  # no builtin looked up: nothing a submission rebinds is called
            if name in forbidden:
                seen.add(name)
            return func(*args, **(kwargs or {}))

    return _Watch()  # type: ignore[no-untyped-call]
