"""Reference autograd engines: the oracles the grader trusts."""

from __future__ import annotations

from reference.scalar import Node

__all__ = ["Node"]
