"""What the child's guard (grader.run.guard.guard) hands a submission: the import finder,
placeholders, and the wrappers of `__import__`, `_signal.signal`, `_imp.create_builtin` and
`_imp.create_dynamic`.

A submission can reach all of it (each function's `__globals__` is this module's), so it is a
module of its own, kept out of the harness's private world (grader.run.child.warm), and none of it
holds the hook's key or state: each asks the hook through `sys.audit`, and fails closed without an
answer. Every name a function here uses is bound as a keyword default: a submission that rebinds
this module's names or builtins changes nothing they do, and the guard refuses it their defaults.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from importlib.machinery import ModuleSpec
from typing import Any, cast

#: the audit events a wrapper asks the hook on
ASK = "autograd-grader.import"
SIGNAL = "autograd-grader.signal"
BUILTIN = "autograd-grader.builtin"
DYNAMIC = "autograd-grader.dynamic"
_NO_ANSWER = "The grader's import guard did not answer: the code graded interfered with it."
_audit = sys.audit


class Placeholder(types.ModuleType):
    """What an import the exercise does not allow gives: a module whose every attribute says so."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise ImportError(
            self.__dict__["_refusal"]
            + " Your import of it gave a placeholder, and this use of it failed."
        )


class Unusable:
    """A name taken from a placeholder (`from turtle import pd`, an editor's stray import): taking
    it is not using it; calling it, reading from it or computing with it fails as the placeholder
    would."""

    __slots__ = ("_refusal",)

    def __init__(self, refusal: str) -> None:
        object.__setattr__(self, "_refusal", refusal)

    def _fail(self, *args: Any, **kwargs: Any) -> Any:
        raise ImportError(
            object.__getattribute__(self, "_refusal")
            + " Your import of it gave a placeholder, and this use of it failed."
        )

    __call__ = __getattr__ = __getitem__ = __iter__ = __len__ = __bool__ = _fail
    __float__ = __int__ = _fail
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _fail
    __truediv__ = __rtruediv__ = __matmul__ = __rmatmul__ = __pow__ = __neg__ = _fail
    __lt__ = __gt__ = __le__ = __ge__ = _fail


def _placeholder(
    name: str, refusal: str, names: Any = (), *, _text: type = str
) -> types.ModuleType:
    """A refused module; `names`, what a `from ... import` takes from it, each an Unusable."""
    module = Placeholder(name)
    module.__dict__["_refusal"] = refusal
    module.__path__ = []
    for item in names:
        # a name of exactly str: nothing of the submission's runs
        if item.__class__ is _text and item != "*":
            module.__dict__[cast(str, item)] = Unusable(refusal)
    return module


def _ask(
    name: str,
    raw: bool = False,
    *,
    _audit: Callable[..., None] = _audit,
    _event: str = ASK,
    _none: str = _NO_ANSWER,
) -> Any:
    """The hook's answer on an import: None (go on), the refusal (a placeholder), or an ImportError
    to raise; no answer counts as a refusal. `raw`: `name` is as __import__ was given it, not as the
    import machinery resolved it."""
    answer: list[Any] = [_none]
    _audit(_event, name, raw, answer)
    return answer[0]


class Finder:
    """First on sys.meta_path: every fresh import asks it first; a refused one gets a placeholder.

    It holds nothing: it asks the hook (`_ask`). A submission that breaks the asking gets refusals,
    and the hook still refuses to run a refused module's code."""

    def find_spec(
        self,
        fullname: str,
        path: object,
        target: object = None,
        *,
        _ask: Callable[..., Any] = _ask,
        _text: type = str,
        _spec: type = ModuleSpec,
    ) -> Any:
        refusal = _ask(fullname)
        if refusal is None:
            return None
        if refusal.__class__ is not _text:  # the library's own import of a C module refused here
            raise refusal
        spec = _spec(fullname, self, is_package=True)
        spec.loader_state = refusal
        return spec

    def create_module(self, spec: Any) -> types.ModuleType:
        return _placeholder(spec.name, spec.loader_state)

    def exec_module(self, module: types.ModuleType) -> None:
        pass


#: what `guarded_import` works with, bound once
_IMPORTING = (sys.modules, _ask, str, _placeholder)


def wrap_import(original: Callable[..., Any]) -> Callable[..., Any]:
    """`__import__` while a submission runs."""

    def guarded_import(
        name: str,
        globals: Any = None,
        locals: Any = None,
        fromlist: Any = (),
        level: int = 0,
        *,
        _bound: tuple[Any, ...] = _IMPORTING,
    ) -> Any:
        """Every import statement: a module the interpreter had loaded already (os, io...) never
        reaches a finder, so the submission's own imports are looked at here too."""
        modules, ask, text, placeholder = _bound
        # a from-import is asked here too, loaded or not: its names are taken from the placeholder
        # at once
        if level == 0 and (name in modules or fromlist):
            refused = ask(name, True)
            if refused is not None:
                if refused.__class__ is text:
                    return placeholder(name, refused, fromlist or ())
                raise refused
        return original(name, globals, locals, fromlist, level)

    return guarded_import


def _answer(
    answer: list[Any],
    *,
    _none: str = _NO_ANSWER,
    _refused: type[Exception] = PermissionError,
    _error: type[BaseException] = BaseException,
    _subclass: Callable[..., bool] = issubclass,
) -> Any:
    if answer[0] is _none:
        raise _refused(_none)
    if _subclass(answer[0].__class__, _error):
        raise answer[0]
    return answer[0]


def guarded_signal(
    signalnum: int,
    handler: Any,
    *,
    _audit: Callable[..., None] = _audit,
    _event: str = SIGNAL,
    _none: str = _NO_ANSWER,
    _answer: Callable[..., Any] = _answer,
) -> Any:
    """_signal.signal while a submission runs: the hook sets the handler, wrapped by
    `wrap_handler`."""
    answer: list[Any] = [_none]
    _audit(_event, signalnum, handler, answer)
    return _answer(answer)


def guarded_create_builtin(
    spec: Any,
    *,
    _audit: Callable[..., None] = _audit,
    _event: str = BUILTIN,
    _none: str = _NO_ANSWER,
    _answer: Callable[..., Any] = _answer,
    _get: Callable[..., Any] = getattr,
) -> Any:
    """_imp.create_builtin while a submission runs: a fresh _signal (or _imp) would be one the
    hook never saw."""
    answer: list[Any] = [_none]
    _audit(_event, _get(spec, "name", None), answer)
    return _answer(answer)


def guarded_create_dynamic(
    spec: Any,
    file: Any = None,
    *,
    _audit: Callable[..., None] = _audit,
    _event: str = DYNAMIC,
    _none: str = _NO_ANSWER,
    _answer: Callable[..., Any] = _answer,
    _get: Callable[..., Any] = getattr,
) -> Any:
    """_imp.create_dynamic while a submission runs: every C extension, however it is loaded (an
    import, ExtensionFileLoader, imp.load_dynamic), is asked for here, even one loaded before,
    which the interpreter would otherwise hand back from its cache without an audit event."""
    answer: list[Any] = [_none]
    _audit(_event, _get(spec, "name", None), _get(spec, "origin", None), answer)
    return _answer(answer)


def wrap_handler(handler: Callable[[int, object], Any]) -> Callable[[int, object], Any]:
    """Python signal handlers get the interrupted frame, a way up the stack into the grader's
    frames: a handler a submission sets gets None instead."""

    def frameless(signum: int, frame: object) -> Any:
        return handler(signum, None)

    return frameless
