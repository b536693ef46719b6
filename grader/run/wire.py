"""The messages between the grading process, a zygote and its children, typed and checked.

Both sides import this module: the grading process (grader.run.sandbox, zygote, running) and the
child's side (grader.run.child), so it imports nothing but the standard library. Each message is
a frozen dataclass with `to_json` and `from_json`. `from_json` checks each field's exact type and
refuses a key it does not know: a message that is not what this module says fails closed
(`WireError`) wherever it is read.

- The grading process starts a zygote with a `ZygoteConfig` on its command line. The zygote's
  first word is its `Hello`. For each run it is sent a `RunHeader`, and it answers `Forked`,
  then `Ended`.
- A child is sent a `Request`. In a two-part run, once it has said all of that, it is sent a
  `SecondPart`.
- The child's reply is not here: it is untrusted data, read line by line by grader.run.reply.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

#: the most a part of a request may hold; the child reads no more
MAX_REQUEST = 64 * 1024 * 1024
#: bytes of a part's size, sent before the part
FRAME_HEADER = 8
#: what a group's probes may compute with (grader.core.engines.Arrays)
ARRAYS = frozenset({"torch", "numpy", "none"})


class WireError(ValueError):
    """A message that is not what this module says it is."""


def frame(data: bytes) -> bytes:
    """One part of a child's request: its size in 8 bytes, then the bytes."""
    return len(data).to_bytes(FRAME_HEADER, "big") + data


def frame_size(header: bytes) -> int:
    """The size a part's header gives, cut at MAX_REQUEST."""
    return min(int.from_bytes(header, "big"), MAX_REQUEST)


def encode(message: Any) -> bytes:
    """A message as the bytes that are sent: its JSON."""
    return json.dumps(message.to_json()).encode()


# ---- a child's request ----------------------------------------------------------------------

#: a probe in plain values: name, code, observations, inputs, torch seed, the names it uses
ProbeFields = tuple[str, str, tuple[tuple[str, str], ...], dict[str, object], int, tuple[str, ...]]


def probe_fields(data: object) -> ProbeFields:
    """A probe's fields from its JSON, checked, in plain values alone.

    The child reads a second part with it after the submission has run, when it makes no
    object of the grader's classes (grader.run.child.warm says why).
    """
    found = _fields(data, _PROBE, "a probe")
    return (
        _text(found, "name"),
        _text(found, "code"),
        _pairs(found, "observe"),
        _inputs(found, "inputs"),
        _integer(found, "torch_seed"),
        _texts(found, "uses"),
    )


_PROBE = frozenset({"name", "code", "observe", "inputs", "torch_seed", "uses"})


@dataclass(frozen=True, slots=True)
class ProbeRequest:
    """One probe for the child to run: its code, what to observe, and its inputs."""

    name: str
    #: the probe's statements (trusted text from the exercise's spec)
    code: str
    #: each observation's label and expression
    observe: tuple[tuple[str, str], ...]
    #: each input's plain data (grader.run.inputs.input_to_data)
    inputs: dict[str, object]
    #: the seed of torch's generator for this probe
    torch_seed: int
    #: the exercise's names the probe uses: where one is missing, the probe is not run
    uses: tuple[str, ...]

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "code": self.code,
            "observe": dict(self.observe),
            "inputs": self.inputs,
            "torch_seed": self.torch_seed,
            "uses": list(self.uses),
        }

    @classmethod
    def from_json(cls, data: object) -> ProbeRequest:
        return cls(*probe_fields(data))


@dataclass(frozen=True, slots=True)
class GraphRequest:
    """How the child reads a library's tensors as graphs (grader.run.child.graph): the attribute
    names of a node (grader.core.library.Graph)."""

    #: the dotted path of the class whose instances are graph nodes
    node: str
    #: the attribute (a dotted path from a node) holding the op that made it: an op or an op's class
    op: str
    #: the attribute (a dotted path from a node) holding the nodes it was made from
    inputs: str
    #: the attribute holding a node's value, or the method that computes it
    realize: str
    #: a module flag that defers computing while it is true, or None
    lazy: str | None

    def to_json(self) -> dict[str, object]:
        return {
            "node": self.node,
            "op": self.op,
            "inputs": self.inputs,
            "realize": self.realize,
            "lazy": self.lazy,
        }

    @classmethod
    def from_json(cls, data: object) -> GraphRequest:
        found = _fields(data, _GRAPH, "a graph")
        return cls(
            _text(found, "node"),
            _text(found, "op"),
            _text(found, "inputs"),
            _text(found, "realize"),
            _maybe_text(found, "lazy"),
        )


_GRAPH = frozenset({"node", "op", "inputs", "realize", "lazy"})


@dataclass(frozen=True, slots=True)
class GroupRequest:
    """One exercise's share of a run: what the submission must define, the rules its probes
    run under, and the probes."""

    #: what the probes compute with: torch, numpy or none (grader.core.engines.Arrays)
    arrays: str
    #: the names are found in the student's package (a library course), not in one module
    package: bool
    #: each name the submission must define, and its kind: class, function or value
    defines: tuple[tuple[str, str], ...]
    #: gradients must come from torch's autograd ("required"), or must not ("forbidden")
    autograd: str | None
    #: torch operators the submission's code may not have run
    forbid_ops: tuple[str, ...]
    #: no complex numbers in the submission's values while the probes run
    forbid_complex: bool
    #: a library's: how its tensors are read as graphs; None to read them as values
    graph: GraphRequest | None
    probes: tuple[ProbeRequest, ...]

    @property
    def watched(self) -> bool:
        """Whether autograd or complex numbers are recorded while its probes run."""
        return bool(self.autograd or self.forbid_ops or self.forbid_complex)

    def to_json(self) -> dict[str, object]:
        return {
            "arrays": self.arrays,
            "package": self.package,
            "defines": dict(self.defines),
            "autograd": self.autograd,
            "forbid_ops": list(self.forbid_ops),
            "forbid_complex": self.forbid_complex,
            "graph": None if self.graph is None else self.graph.to_json(),
            "probes": [probe.to_json() for probe in self.probes],
        }

    @classmethod
    def from_json(cls, data: object) -> GroupRequest:
        found = _fields(data, _GROUP, "a group")
        probes = _list(found, "probes")
        graph = found["graph"]
        return cls(
            arrays=_one_of(found, "arrays", ARRAYS),
            package=_flag(found, "package"),
            defines=_pairs(found, "defines"),
            autograd=_maybe_text(found, "autograd"),
            forbid_ops=_texts(found, "forbid_ops"),
            forbid_complex=_flag(found, "forbid_complex"),
            graph=None if graph is None else GraphRequest.from_json(graph),
            probes=tuple(ProbeRequest.from_json(probe) for probe in probes),
        )


_GROUP = frozenset(
    {"arrays", "package", "defines", "autograd", "forbid_ops", "forbid_complex", "graph", "probes"}
)


@dataclass(frozen=True, slots=True)
class SourceFile:
    """A cell of the submission (named by its label), one of its own modules beside it (named by
    its file name), or a file of its package (named by its path in the repository)."""

    name: str
    source: str

    def to_json(self) -> dict[str, object]:
        return {"name": self.name, "source": self.source}

    @classmethod
    def from_json(cls, data: object) -> SourceFile:
        found = _fields(data, _SOURCE, "a source file")
        return cls(_text(found, "name"), _text(found, "source"))


_SOURCE = frozenset({"name", "source"})


@dataclass(frozen=True, slots=True, kw_only=True)
class Request:
    """What a child is asked to do: load the submission, then run each group's probes."""

    #: the graded file's name: the module's __file__
    filename: str
    #: the exercises' ids, as a refused import names them
    exercise: str
    #: the graded file's cells, in order (a .py file is one)
    cells: tuple[SourceFile, ...]
    #: the submission's own modules, importable beside the graded file
    siblings: tuple[SourceFile, ...]
    #: a library's package: the course's files of the student's repository
    package: tuple[SourceFile, ...]
    #: folders of the repository put on sys.path, first first
    import_paths: tuple[str, ...]
    #: go on past a cell that raises, as a notebook does
    keep_going: bool
    #: cpu or cuda
    device: str
    #: a `SecondPart` follows, once the child has said all of this one
    two_parts: bool
    #: top-level modules the submission may import (None: any)
    allowed: tuple[str, ...] | None
    #: modules it may not import, with their submodules
    forbidden: tuple[str, ...]
    groups: tuple[GroupRequest, ...]

    def to_json(self) -> dict[str, object]:
        allowed = None if self.allowed is None else list(self.allowed)
        return {
            "filename": self.filename,
            "exercise": self.exercise,
            "cells": [cell.to_json() for cell in self.cells],
            "siblings": [sibling.to_json() for sibling in self.siblings],
            "package": [file.to_json() for file in self.package],
            "import_paths": list(self.import_paths),
            "keep_going": self.keep_going,
            "device": self.device,
            "two_parts": self.two_parts,
            "allowed": allowed,
            "forbidden": list(self.forbidden),
            "groups": [group.to_json() for group in self.groups],
        }

    @classmethod
    def from_json(cls, data: object) -> Request:
        found = _fields(data, _REQUEST, "the request")
        cells = _list(found, "cells")
        siblings = _list(found, "siblings")
        package = _list(found, "package")
        groups = _list(found, "groups")
        return cls(
            filename=_text(found, "filename"),
            exercise=_text(found, "exercise"),
            cells=tuple(SourceFile.from_json(cell) for cell in cells),
            siblings=tuple(SourceFile.from_json(sibling) for sibling in siblings),
            package=tuple(SourceFile.from_json(file) for file in package),
            import_paths=_texts(found, "import_paths"),
            keep_going=_flag(found, "keep_going"),
            device=_text(found, "device"),
            two_parts=_flag(found, "two_parts"),
            allowed=_maybe_texts(found, "allowed"),
            forbidden=_texts(found, "forbidden"),
            groups=tuple(GroupRequest.from_json(group) for group in groups),
        )


_REQUEST = frozenset(
    {
        "filename",
        "exercise",
        "cells",
        "siblings",
        "package",
        "import_paths",
        "keep_going",
        "device",
        "two_parts",
        "allowed",
        "forbidden",
        "groups",
    }
)


def second_part_fields(data: object) -> list[tuple[int, list[ProbeFields]]]:
    """A second part's groups in plain values: each group's place in the request, and its
    probes (read as `probe_fields` reads them: after the submission has run)."""
    groups = _list(_fields(data, _SECOND_PART, "the second part"), "groups")
    found = []
    for group in groups:
        part = _fields(group, _PART, "a group of the second part")
        probes = []
        for probe in _list(part, "probes"):
            probes.append(probe_fields(probe))
        found.append((_integer(part, "group"), probes))
    return found


_SECOND_PART = frozenset({"groups"})
_PART = frozenset({"group", "probes"})


@dataclass(frozen=True, slots=True)
class SecondPart:
    """The second part of a two-part run: more probes for groups of its request, each group
    named by its place there."""

    groups: tuple[tuple[int, tuple[ProbeRequest, ...]], ...]

    def to_json(self) -> dict[str, object]:
        groups = []
        for place, probes in self.groups:
            listed = [probe.to_json() for probe in probes]
            groups.append({"group": place, "probes": listed})
        return {"groups": groups}

    @classmethod
    def from_json(cls, data: object) -> SecondPart:
        groups = []
        for place, probes in second_part_fields(data):
            made = tuple(ProbeRequest(*probe) for probe in probes)
            groups.append((place, made))
        return cls(tuple(groups))


# ---- a zygote's messages --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MemoryFiles:
    """Descriptors a zygote sets its cgroups' memory limit through (grader.run.confine.cgroups)."""

    #: the cgroup version, 1 or 2
    version: int
    #: the memory limit's file
    memory: int
    #: v1's memory and swap limit's file; -1 where there is none
    swap: int

    def to_json(self) -> dict[str, object]:
        return {"version": self.version, "memory": self.memory, "swap": self.swap}

    @classmethod
    def from_json(cls, data: object) -> MemoryFiles:
        found = _fields(data, _MEMORY, "the memory files")
        return cls(
            _integer(found, "version"),
            _integer(found, "memory"),
            _integer(found, "swap"),
        )


_MEMORY = frozenset({"version", "memory", "swap"})


@dataclass(frozen=True, slots=True, kw_only=True)
class ZygoteConfig:
    """What a zygote is started with, on its command line."""

    #: its end of the socket to the grading process
    sock: int
    #: where it sets its runs' memory limit; None without a memory cgroup
    memory: MemoryFiles | None
    #: the function each run's child calls, as "module:name"
    target: str
    #: top-level modules its submissions may import (None: any)
    allowed: tuple[str, ...] | None
    #: modules they may not import, with their submodules
    forbidden: tuple[str, ...]
    #: how it is confined (grader.run.confine.isolate.Mode): its kind, level and words
    mode: str
    level: str
    isolation: str
    #: where its runs' own folders are made
    scratch: str
    #: folders of its file tree that lie in a scratch folder: never wiped
    keep: tuple[str, ...]

    def to_json(self) -> dict[str, object]:
        memory = None if self.memory is None else self.memory.to_json()
        allowed = None if self.allowed is None else list(self.allowed)
        return {
            "sock": self.sock,
            "memory": memory,
            "target": self.target,
            "allowed": allowed,
            "forbidden": list(self.forbidden),
            "mode": self.mode,
            "level": self.level,
            "isolation": self.isolation,
            "scratch": self.scratch,
            "keep": list(self.keep),
        }

    @classmethod
    def from_json(cls, data: object) -> ZygoteConfig:
        found = _fields(data, _CONFIG, "the zygote's configuration")
        memory = found["memory"]
        return cls(
            sock=_integer(found, "sock"),
            memory=None if memory is None else MemoryFiles.from_json(memory),
            target=_text(found, "target"),
            allowed=_maybe_texts(found, "allowed"),
            forbidden=_texts(found, "forbidden"),
            mode=_text(found, "mode"),
            level=_text(found, "level"),
            isolation=_text(found, "isolation"),
            scratch=_text(found, "scratch"),
            keep=_texts(found, "keep"),
        )


_CONFIG = frozenset(
    {
        "sock",
        "memory",
        "target",
        "allowed",
        "forbidden",
        "mode",
        "level",
        "isolation",
        "scratch",
        "keep",
    }
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Hello:
    """A zygote's first word: how its children are confined."""

    #: full, namespaces, landlock or none (grader.run.confine.isolate)
    level: str
    mode: str
    isolation: str

    def to_json(self) -> dict[str, object]:
        return {"level": self.level, "mode": self.mode, "isolation": self.isolation}

    @classmethod
    def from_json(cls, data: object) -> Hello:
        found = _fields(data, _HELLO, "the zygote's hello")
        return cls(
            level=_text(found, "level"),
            mode=_text(found, "mode"),
            isolation=_text(found, "isolation"),
        )


_HELLO = frozenset({"level", "mode", "isolation"})


@dataclass(frozen=True, slots=True, kw_only=True)
class RunHeader:
    """What the zygote needs to fork one run: its number, its user, its limits."""

    run: int
    #: the run's own uid; None where runs keep the zygote's
    uid: int | None
    #: the run keeps root for file access alone (grader.run.confine.isolate.Mode.files_as_root)
    files_as_root: bool
    cpu: int
    #: RLIMIT_AS in bytes (the zygote's size plus the budget); 0: none
    memory_cap: int
    #: what the zygote's cgroups may hold during the run, the zygote included
    #: (grader.run.confine.cgroups); 0: no limit; -1: no cgroups
    group_memory: int
    file_bytes: int
    nproc: int

    def to_json(self) -> dict[str, object]:
        return {
            "run": self.run,
            "uid": self.uid,
            "files_as_root": self.files_as_root,
            "cpu": self.cpu,
            "memory_cap": self.memory_cap,
            "group_memory": self.group_memory,
            "file_bytes": self.file_bytes,
            "nproc": self.nproc,
        }

    @classmethod
    def from_json(cls, data: object) -> RunHeader:
        found = _fields(data, _HEADER, "a run's header")
        uid = found["uid"]
        return cls(
            run=_integer(found, "run"),
            uid=None if uid is None else _integer(found, "uid"),
            files_as_root=_flag(found, "files_as_root"),
            cpu=_integer(found, "cpu"),
            memory_cap=_integer(found, "memory_cap"),
            group_memory=_integer(found, "group_memory"),
            file_bytes=_integer(found, "file_bytes"),
            nproc=_integer(found, "nproc"),
        )


_HEADER = frozenset(
    {
        "run",
        "uid",
        "files_as_root",
        "cpu",
        "memory_cap",
        "group_memory",
        "file_bytes",
        "nproc",
    }
)


@dataclass(frozen=True, slots=True)
class Forked:
    """The zygote forked a run's child; its pidfd comes with this word."""

    run: int
    #: the child's pid, as the zygote sees it
    pid: int
    #: whether the zygote set the run's memory limit on its cgroups
    limited: bool

    def to_json(self) -> dict[str, object]:
        return {"run": self.run, "pid": self.pid, "limited": self.limited}


@dataclass(frozen=True, slots=True)
class Ended:
    """A run's child has ended, and all it started with it."""

    run: int
    #: its raw wait status (os.waitstatus_to_exitcode reads it)
    status: int

    def to_json(self) -> dict[str, object]:
        return {"run": self.run, "status": self.status}


def zygote_word(data: object) -> Forked | Ended:
    """A zygote's word about a run: `Forked` or `Ended`."""
    if type(data) is dict and "status" in data:
        ended = _fields(data, _ENDED, "the zygote's word")
        return Ended(_integer(ended, "run"), _integer(ended, "status"))
    forked = _fields(data, _FORKED, "the zygote's word")
    return Forked(
        _integer(forked, "run"),
        _integer(forked, "pid"),
        _flag(forked, "limited"),
    )


_FORKED = frozenset({"run", "pid", "limited"})
_ENDED = frozenset({"run", "status"})


# ---- reading exact types --------------------------------------------------------------------


def _fields(data: object, names: frozenset[str], what: str) -> dict[str, Any]:
    """`data` as a JSON object holding exactly the keys `names`."""
    if type(data) is not dict:
        raise WireError(f"{what} is not a JSON object")
    if set(data) != names:
        raise WireError(f"{what} has the keys {sorted(data)}, not {sorted(names)}")
    return data


def _text(found: dict[str, Any], key: str) -> str:
    value = found[key]
    if type(value) is not str:
        raise WireError(f"{key} is not text")
    return value


def _one_of(found: dict[str, Any], key: str, allowed: frozenset[str]) -> str:
    value = _text(found, key)
    if value not in allowed:
        raise WireError(f"{key} is {value!r}, not one of {sorted(allowed)}")
    return value


def _maybe_text(found: dict[str, Any], key: str) -> str | None:
    return None if found[key] is None else _text(found, key)


def _integer(found: dict[str, Any], key: str) -> int:
    value = found[key]
    if type(value) is not int:
        raise WireError(f"{key} is not an integer")
    return value


def _flag(found: dict[str, Any], key: str) -> bool:
    value = found[key]
    if type(value) is not bool:
        raise WireError(f"{key} is not true or false")
    return value


def _list(found: dict[str, Any], key: str) -> list[Any]:
    value = found[key]
    if type(value) is not list:
        raise WireError(f"{key} is not a list")
    return value


def _texts(found: dict[str, Any], key: str) -> tuple[str, ...]:
    values = _list(found, key)
    for value in values:
        if type(value) is not str:
            raise WireError(f"{key} holds something that is not text")
    return tuple(values)


def _maybe_texts(found: dict[str, Any], key: str) -> tuple[str, ...] | None:
    return None if found[key] is None else _texts(found, key)


def _pairs(found: dict[str, Any], key: str) -> tuple[tuple[str, str], ...]:
    """A JSON object of text, as its (key, value) pairs in order."""
    values = found[key]
    if type(values) is not dict:
        raise WireError(f"{key} is not a JSON object")
    for value in values.values():
        if type(value) is not str:
            raise WireError(f"{key} holds something that is not text")
    return tuple(values.items())


def _inputs(found: dict[str, Any], key: str) -> dict[str, object]:
    """Inputs as grader.run.inputs.input_to_data writes them: each a number, or a tensor."""
    values = found[key]
    if type(values) is not dict:
        raise WireError(f"{key} is not a JSON object")
    for value in values.values():
        if type(value) is dict:
            _tensor(value)
        elif type(value) is not float and type(value) is not int:
            raise WireError(f"{key} holds something that is neither a number nor a tensor")
    return values


def _tensor(value: dict[str, Any]) -> None:
    tensor = _fields(_fields(value, _TENSOR, "a tensor")["tensor"], _TENSOR_FIELDS, "a tensor")
    for size in _list(tensor, "shape"):
        if type(size) is not int:
            raise WireError("a tensor's shape holds something that is not an integer")
    for number in _list(tensor, "data"):
        if type(number) is not float and type(number) is not int:
            raise WireError("a tensor's data holds something that is not a number")
    _text(tensor, "dtype")
    _flag(tensor, "requires_grad")


_TENSOR = frozenset({"tensor"})
_TENSOR_FIELDS = frozenset({"shape", "data", "dtype", "requires_grad"})
