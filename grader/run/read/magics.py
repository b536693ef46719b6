"""IPython syntax in a cell replaced by Python that does nothing, so that no shell ever runs when
grading.

`%magic` and `%%cell magic` lines, `!shell`, `x = !cmd` and `obj?` help lookups are neutralised,
each reported; `%%time` and `%time stmt` keep their Python. Linear in the cell, whatever it holds.
Nothing here runs the cell: this is the trusted side reading text.
"""

from __future__ import annotations

import ast
import re

from grader.core.text import clean
from grader.run.read.syntax import syntax_tree

#: cell magics whose body is Python: it runs once, without the magic
PYTHON_CELL_MAGICS = {"time", "timeit", "capture", "prun", "debug"}
#: line magics that wrap one statement: the statement runs, once
STATEMENT_LINE_MAGICS = {"time", "prun"}

_LINE_MAGIC = re.compile(r"^(?P<indent>\s*)(?P<text>(?P<sigil>%|!)(?P<name>[\w.-]*).*)$")
#: what may stand left of `= !cmd`: names, attributes, subscripts, unpacking (matched alone: no
#: backtracking)
_TARGET = re.compile(r"[\w.,\s\[\]()*]+")
_HELP = re.compile(r"^(?P<indent>\s*)(?P<text>\??[\w.]+\?\??)\s*$")


def neutralise(source: str) -> tuple[str, list[tuple[int, str, str]]]:
    """Replace IPython-only syntax with Python that does nothing; return (python, [(line, text,
    why)]).

    Only lines where a statement starts (outside brackets, strings and continuations) and that the
    Python parser rejects on their own are touched, so `%` and `!` inside strings and expressions
    stay as they are. A cell with a real syntax error keeps it, for the run to report. Linear in the
    cell: it is parsed at most three times and each line scanned once (it once re-parsed the cell
    for every magic line). Lone surrogates, which no format can write, become U+FFFD.
    """
    lines = clean(source).split("\n")
    changes: list[tuple[int, str, str]] = []
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if (
        first is not None
        and lines[first].lstrip().startswith("%%")
        and not _parses("\n".join(lines))
    ):
        name = lines[first].strip()[2:].split(maxsplit=1)[0] if lines[first].strip() != "%%" else ""
        changes.append((first + 1, lines[first].strip(), "cell magics do not run when grading"))
        if name not in PYTHON_CELL_MAGICS:  # %%bash, %%writefile, %%html...: not Python at all
            return "\n".join("" for _ in lines), changes
        lines[first] = ""
    if not _parses("\n".join(lines)):
        changes += _replace_magic_lines(lines)
    return _without_checks(lines, sorted(changes))


def _replace_magic_lines(lines: list[str]) -> list[tuple[int, str, str]]:
    """Neutralise, in place, each line that starts a statement and is IPython syntax; say which."""
    changes = []
    depth, quote, continued = 0, None, False
    for index, line in enumerate(lines):
        if depth == 0 and quote is None and not continued:
            replaced = _neutral_line(line)
            if replaced is not None:
                changes.append((index + 1, line.strip(), replaced[1]))
                lines[index] = replaced[0]
                continue  # a shell line's quotes are not Python's: they open no string
        depth, quote, continued = _scan(line, depth, quote)
    return changes


#: what changes the lexical state of a line: comments, strings, brackets, continuations
_INTERESTING = re.compile(r"""[#'"\\()\[\]{}]""")
_QUOTES = ("'", '"', "'" * 3, '"' * 3)
_STRING_ENDS = {quote: re.compile(r"\\.|" + re.escape(quote), re.DOTALL) for quote in _QUOTES}


def _scan(line: str, depth: int, quote: str | None) -> tuple[int, str | None, bool]:
    """After `line`: the bracket depth, the triple-quoted string still open, and whether a backslash
    continues it."""
    i, n = 0, len(line)
    while i < n:
        if quote is not None:
            end = _string_end(line, i, quote)
            if end < 0:
                return depth, quote, False
            i, quote = end, None
            continue
        found = _INTERESTING.search(line, i)
        if found is None:
            break
        char, i = found.group(), found.end()
        if char == "#":
            break
        if char == "\\":
            if i == n:
                return depth, None, True
            i += 1
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth = max(0, depth - 1)
        elif line.startswith(char * 3, i - 1):
            quote, i = char * 3, i + 2
        else:
            end = _string_end(line, i, char)
            # an unclosed one-line string ends with its line (a syntax error)
            i = n if end < 0 else end
    return depth, quote, False


def _string_end(line: str, start: int, quote: str) -> int:
    """Where the string closed by `quote` ends in `line` from `start` (escapes skipped); -1 if it
    does not."""
    for found in _STRING_ENDS[quote].finditer(line, start):
        if found.group() == quote:
            return found.end()
    return -1


#: why `from grader import check` does not run when a notebook is graded
CHECKS_OFF = "checks in the notebook do not run when it is graded"


def _without_checks(
    lines: list[str], changes: list[tuple[int, str, str]]
) -> tuple[str, list[tuple[int, str, str]]]:
    """`from grader import check` (grader.course.notebook_check) bound to a function that does
    nothing, so that the student's own check() calls neither grade again from inside the sandbox nor
    fail there."""
    source = "\n".join(lines)
    tree = syntax_tree(source) if "grader" in source else None
    if tree is None:
        return source, changes
    found = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        and node.module == "grader"
        and node.level == 0
        and node.lineno == node.end_lineno
    ]
    # right to left: earlier columns stay valid
    for node in sorted(found, key=lambda n: -n.col_offset):
        line = lines[node.lineno - 1]
        bound = [alias.asname or alias.name for alias in node.names]
        quiet = "; ".join(f"{name} = lambda *args, **kwargs: None" for name in bound)
        lines[node.lineno - 1] = (
            line[: node.col_offset] + quiet + line[node.end_col_offset or len(line) :]
        )
        changes.append(
            (node.lineno, line[node.col_offset : node.end_col_offset].strip(), CHECKS_OFF)
        )
    return "\n".join(lines), sorted(changes)


def _neutral_line(line: str) -> tuple[str, str] | None:
    """What replaces `line` if it is IPython syntax the parser rejects on its own, and why; else
    None."""
    stripped = line.strip()
    if (
        not stripped
        or not (stripped[0] in "%!" or stripped[-1] == "?" or "=" in stripped)
        or _parses(stripped)
    ):
        return None
    target, equals, rest = line.partition("=")
    if equals and rest.lstrip()[:1] in ("%", "!") and _TARGET.fullmatch(target):
        return f"{target.rstrip()} = None", "shell commands and magics do not run when grading"
    magic = _LINE_MAGIC.match(line)
    if magic:
        indent, text = magic["indent"], magic["text"]
        if magic["sigil"] == "!":
            return f"{indent}pass", "shell commands do not run when grading"
        rest = text[len(magic["name"]) + 1 :].strip()
        if magic["name"] in STATEMENT_LINE_MAGICS and rest:
            return f"{indent}{rest}", f"%{magic['name']} removed; the statement still runs"
        why = (
            "pip installs nothing when grading"
            if magic["name"] == "pip"
            else "magics do not run when grading"
        )
        return f"{indent}pass", why
    help_ = _HELP.match(line)
    if help_:
        return f"{help_['indent']}pass", "help lookups do not run when grading"
    return None


def _parses(source: str) -> bool:
    return syntax_tree(source) is not None
