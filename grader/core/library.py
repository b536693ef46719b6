"""A library course: the student hands in a package, and its exercises name the package's objects.

A course of this kind (needle, minitorch) says in its course.yaml which files of a student's
repository make up the package, where they are imported from, and where its own reference
repository lies. Its exercises name objects by dotted path (`needle.ops.EWiseMul`), and the
ops an exercise grades: every other op a probe's result was built with is evaluated with the
course's reference on the trusted side (its graph, below).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

#: what a repository may be handed in as besides its folder, by the archive's name
ARCHIVES = (".zip", ".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz")


@dataclass(frozen=True, slots=True)
class Graph:
    """How the library's tensors record what made them, so that a result can be evaluated again
    with the course's reference ops (grader.judge.library.standin). Attributes are dotted paths
    from a node (minitorch's `history.last_fn`); None anywhere along one makes the node a leaf."""

    #: the dotted path of the class whose instances are graph nodes (needle.autograd.Value)
    node: str
    #: the attribute holding the op that made a node:
    #: an op object (needle) or an op class (minitorch)
    op: str = "op"
    #: the attribute holding the nodes it was made from
    inputs: str = "inputs"
    #: the attribute holding a node's value, or the method computing it (with the student's own ops)
    realize: str = "realize_cached_data"
    #: a module flag that defers computing while it is true (needle.autograd.LAZY_MODE), or None
    lazy: str | None = None
    #: the op's method that computes a value from its inputs'
    #: values (needle's compute, minitorch's forward)
    compute: str = "compute"
    #: the dotted path of the library's context class, or None: where given, `compute` is called on
    #: the op's class with a new context first (minitorch's ScalarFunction.forward(ctx, *values))
    context: str | None = None


@dataclass(frozen=True, slots=True)
class Library:
    """What a student's repository hands in, and the course's own repositories."""

    #: the files taken from a repository, as globs relative to its root (`**` spans folders)
    files: tuple[str, ...]
    #: folders of the repository put on sys.path, first first ("." is its root)
    import_paths: tuple[str, ...]
    #: the course's reference repository (its solution),
    #: laid out as a student's is; None in a released pack
    reference: Path | None
    #: the repository a student starts from, for `grade release` and `grade validate`
    starter: Path | None
    graph: Graph | None = None
    #: files of the starter, the course's own and public (module 0's operators),
    #: whose functions stand in for the student's of the same name: so a bug
    #: there, graded before, costs nothing here (grader.run.read.given)
    given: tuple[str, ...] = ()


def last_name(dotted: str) -> str:
    """The name a probe knows an object by: the last part of its dotted path."""
    return dotted.rpartition(".")[2]
