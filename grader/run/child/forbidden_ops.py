"""In the child: which of the torch operators an exercise forbids ran during a probe
(grader.run.child.evidence).

The operators are watched by kernels registered over torch's own for the CPU and CUDA keys, which
call the kernel they replaced: a dispatch mode, `_disable_current_modes()`, `_DisableTorchDispatch`
or a dispatch below autograd's key skip a mode but never the backend's kernel. The registrations and
what they report to are held by the harness alone; the C++ dispatcher holds the kernels, and no
Python object leads to them.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Generator
from typing import Any

#: the dispatch keys whose kernels are watched
_KEYS = ("CPU", "CUDA")


def ops_record(token: object) -> Generator[Any, Any, None]:
    """The forbidden operators that ran while a probe did; only the harness turns it on, off, and
    reads it."""
    type_, len_, sorted_, set_ = type, len, sorted, set
    on = False
    seen: set[str] = set()
    answer: Any = None
    while True:
        try:
            message = yield answer
        except BaseException:  # noqa: BLE001 - thrown in by the submission: the record goes on
            continue
        answer = None
        if type_(message) is not tuple or len_(message) != 2:
            continue
        if message[0] is token:
            if message[1] == "on" or message[1] == "off":
                on = message[1] == "on"
            elif message[1] == "take":
                answer = sorted_(seen)
                seen = set_()
        elif on and type_(message[0]) is str and message[0] == "op" and type_(message[1]) is str:
            seen.add(message[1])


def watch_forbidden(torch: Any, forbidden: tuple[str, ...], note: Callable[[Any], Any]) -> Any:
    """Watch the forbidden operators: under torch's own kernels where this torch can call a kernel
    it replaced (2.9 and later; nothing then to enter), else with a dispatch mode (which a
    submission can leave)."""
    get_kernel = getattr(torch.library, "get_kernel", None)
    if get_kernel is None:
        return _forbidden_ops_mode(torch, frozenset(forbidden), note)
    libraries = {key: torch._C._dispatch_library("IMPL", "aten", key, "", 0) for key in _KEYS}
    with warnings.catch_warnings():
        # torch warns of every kernel replaced: these are meant to be
        warnings.simplefilter("ignore")
        for name in forbidden:
            packet = getattr(torch.ops.aten, name, None)
            for overload in packet.overloads() if packet is not None else ():
                qualified = name if overload == "default" else f"{name}.{overload}"
                for key, library in libraries.items():
                    try:
                        kernel = get_kernel(f"aten::{qualified}", key)
                    except (RuntimeError, ValueError):
                        continue  # no kernel for this key in this build (CUDA on a CPU build)
                    library.impl(qualified, key, _watching_kernel(kernel, name, note), True)
    # Kept alive in the harness's own record (its closure): dropping the libraries would undo the
    # registrations.
    return _Held(libraries)


def _watching_kernel(kernel: Any, name: str, note: Callable[[Any], Any]) -> Callable[..., Any]:
    call = kernel.call_boxed
    message = ("op", name)

    def watching(keyset: Any, *args: Any, **kwargs: Any) -> Any:
        note(message)
        return call(keyset, *args, **kwargs)

    return watching


class _Held:
    """Registrations held for the run's life; entering and leaving it does nothing."""

    def __init__(self, held: object) -> None:
        self._held = held

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def _forbidden_ops_mode(torch: Any, forbidden: frozenset[str], note: Callable[[Any], Any]) -> Any:
    """A dispatch mode that notes every forbidden operator that runs (the engine's own included)."""
    from torch.utils._python_dispatch import TorchDispatchMode

    class _Watch(TorchDispatchMode):  # type: ignore[no-untyped-call]
        def __torch_dispatch__(
            self, func: Any, types: Any, args: Any = (), kwargs: Any = None
        ) -> Any:
            name = str(func.__name__).split(".")[0]
            if name in forbidden:
                note(("op", name))
            return func(*args, **(kwargs or {}))

    return _Watch()  # type: ignore[no-untyped-call]
