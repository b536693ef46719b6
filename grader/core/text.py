"""Text from a submission made safe to carry in every
format: lone surrogates and file names of any bytes.

A str that came from outside can hold what no encoder takes: a lone surrogate from a JSON
`\\ud800` escape (a notebook, a child's reply) or from a file name that is not UTF-8
(Python decodes those with surrogateescape). Writing such text as UTF-8 raises, which
once crashed a report, a worker and a batch. These functions are linear and never raise.
"""

from __future__ import annotations

import re
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")
#: how a JSON text spells a surrogate: only such a text can decode to one
_ESCAPED_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")
REPLACEMENT = "\ufffd"


def clean(text: str) -> str:
    """`text` with every surrogate (always lone in a str) replaced by U+FFFD."""
    return _SURROGATE.sub(REPLACEMENT, text) if _SURROGATE.search(text) else text


def may_hold_surrogates(raw: bytes) -> bool:
    """Whether JSON text `raw` could decode to a str
    holding a surrogate (most never do: a fast test)."""
    return _ESCAPED_SURROGATE.search(raw) is not None


def clean_data(data: Any) -> Any:
    """Decoded JSON with every string (keys too)
    `clean`: iterative, so nesting costs no recursion."""
    if isinstance(data, str):
        return clean(data)
    if not isinstance(data, dict | list):
        return data
    root: list[Any] = [data]
    stack: list[tuple[Any, Any, Any]] = [(root, 0, data)]
    while stack:
        parent, key, value = stack.pop()
        if isinstance(value, dict):
            fresh: dict[Any, Any] = {}
            for k, v in value.items():
                fresh[clean(k) if isinstance(k, str) else k] = v
            parent[key] = fresh
            stack.extend(
                (fresh, k, v) for k, v in fresh.items() if isinstance(v, str | dict | list)
            )
        elif isinstance(value, list):
            fresh_list = list(value)
            parent[key] = fresh_list
            stack.extend(
                (fresh_list, i, v)
                for i, v in enumerate(fresh_list)
                if isinstance(v, str | dict | list)
            )
        else:
            parent[key] = clean(value)
    return root[0]


#: what a name must not carry to a terminal or a page:
#: control characters (ANSI escapes too) and bidi controls
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def file_name(name: str) -> str:
    """A file name as text every format and terminal can carry: bytes that are not
    UTF-8 are shown as `\\xe9`, control and bidi characters as `\\x1b`, `\\u202e`
    (a name printed in the batch's log cannot drive the instructor's terminal)."""
    if _SURROGATE.search(name):
        try:
            name = name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        except UnicodeEncodeError:
            # a surrogate that no undecodable byte gives: not from the file system
            name = clean(name)
    if _CONTROL.search(name):
        name = _CONTROL.sub(
            lambda found: found.group().encode("unicode_escape").decode("ascii"), name
        )
    return name


#: what a TOML basic string may not hold as itself: the
#: quote, the backslash and control characters (TOML 1.0)
_TOML_ESCAPED = re.compile('["\\\\\x00-\x1f\x7f]')


def toml_string(text: str) -> str:
    """`text` as a TOML basic string, which tomllib reads back as `text`.
    json.dumps is not one: it writes each character past U+FFFF as two
    surrogate escapes, which TOML refuses. Lone surrogates become U+FFFD."""
    return '"' + _TOML_ESCAPED.sub(lambda found: f"\\u{ord(found.group()):04X}", clean(text)) + '"'
