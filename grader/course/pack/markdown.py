"""Text for a released notebook's markdown cells, where Markdown reads `Node.__mul__` as
"Node.**mul**" and `_backward ... _prev` as emphasis: every name with a dunder or a
leading underscore outside a code span becomes a code span, so that it shows as written."""

from __future__ import annotations

import re

#: a code span (kept as it is), or a name Markdown would take
#: apart: Node.__mul__, __rmul__, x.__add__(), _backward
_SPAN_OR_NAME = re.compile(
    r"(`+)(?:.*?)\1|(?<![\w`])((?:[A-Za-z_]\w*\.)*(?:__[A-Za-z]\w*?__|_[A-Za-z]\w*)(?:\(\))?)"
    r"(?![\w`])",
    re.DOTALL,
)


def code_dunders(text: str) -> str:
    """`text` with each such name outside code spans written as a code span."""
    return _SPAN_OR_NAME.sub(lambda m: m[0] if m[1] else f"`{m[2]}`", text)
