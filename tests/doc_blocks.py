"""The fenced code blocks of README.md and docs/*.md, what each info string asks of them, and a course to run them in.

docs/development.md says what each mark means; tests/test_docs.py runs the blocks.
"""

from __future__ import annotations

import doctest
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))

_FENCE = re.compile(r"^(`{3,}|~{3,})(.*)$")
_NOT_RUN = re.compile(r"^<!--\s*not run:\s*(.+?)\s*-->$")
#: the kinds a block can be; `unmarked` is an error: every block says what it is
KINDS = ("run", "output", "file", "doctest", "compile", "parse", "not code", "not run", "unmarked")


@dataclass(frozen=True)
class Block:
    doc: Path
    line: int  # of the opening fence, counted from 1
    lang: str
    words: tuple[str, ...]  # the info string after the language: `output`, `file=PATH`
    text: str
    not_run: str | None  # the reason a `<!-- not run: ... -->` line just before the fence gives

    @property
    def where(self) -> str:
        return f"{self.doc.relative_to(ROOT)}:{self.line}"

    @property
    def file(self) -> str | None:
        found = [word.removeprefix("file=") for word in self.words if word.startswith("file=")]
        return found[0] if found else None

    @property
    def kind(self) -> str:
        if self.not_run is not None:
            return "not run"
        if self.file is not None:
            return "file"
        if self.lang in ("sh", "bash"):
            return "run"
        if self.lang == "text" and "output" in self.words:
            return "output"
        if self.lang == "python":
            return "doctest" if ">>>" in self.text else "compile"
        if self.lang in ("toml", "yaml", "json"):
            return "parse"
        if self.lang in ("text", "csv"):
            return "not code"
        return "unmarked"


def blocks(doc: Path) -> list[Block]:
    """Every fenced block of one Markdown file, in order (a fence closes on the same fence, as CommonMark says)."""
    lines = doc.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        opening = _FENCE.match(lines[i])
        if opening is None:
            i += 1
            continue
        fence, info = opening.group(1), opening.group(2).split()
        end = next((j for j in range(i + 1, len(lines)) if lines[j].startswith(fence) and not lines[j].strip(fence[0])),
                   len(lines))
        before = next((lines[j].strip() for j in range(i - 1, -1, -1) if lines[j].strip()), "")
        reason = _NOT_RUN.match(before)
        found.append(Block(doc, i + 1, info[0] if info else "", tuple(info[1:]), "\n".join(lines[i + 1:end]) + "\n",
                           reason.group(1) if reason else None))
        i = end + 1
    return found


# A course folder as the guides' examples expect it: a copy of the exercises (course-secret goes beside them),
# the samples, fixtures and examples of this checkout, and the files the guides name. Each is a real sample.
_COPIED = ("exercises", "submissions", "examples", "tests/fixtures/lms")
_NAMED = {
    "my_node.py": "submissions/node-mul/no_rmul.py",
    "homework.ipynb": "submissions/notebooks/tiny_engine_with_plots.ipynb",
    "lesson.ipynb": "submissions/notebooks/autograd_lesson.ipynb",
    "my_sigmoid.py": "submissions/custom-sigmoid/stable_recompute.py",
    "my_folder/engine.py": "tests/fixtures/lms/canvas/doejane_12345_9876501_engine.py",
    "my_folder/helpers.py": "tests/fixtures/lms/canvas/doejane_12345_9876502_helpers.py",
    "hw1/alice.py": "submissions/node-mul/correct_lesson_style.py",
    "hw1/bob.py": "submissions/node-mul/swapped_slopes.py",
    "hw1/carol.py": "submissions/node-mul/no_rmul.py",
    "hw1/dan.py": "submissions/node-mul/syntax_error.py",
}
_ROSTER = "id,name,email\nalice,Alice Adams,alice@example.edu\nbob,Bob Brown,bob@example.edu\n" \
          "carol,Carol Chen,carol@example.edu\ndan,Dan Diaz,dan@example.edu\nerin,Erin Evans,erin@example.edu\n"

#: my-course's roster: the ids server.md's course.toml and commands name
_COURSE_ROSTER = "id,name,email\ns1234,Ana Lee,ana@example.edu\ns1235,Bob Smith,bob@example.edu\n"


def make_course(folder: Path) -> Path:
    """Lay out the course the guides' blocks run in; every guide gets its own, fresh."""
    for name in _COPIED:
        shutil.copytree(ROOT / name, folder / name, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
    for name, sample in _NAMED.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / sample, folder / name)
    (folder / "roster.csv").write_text(_ROSTER)
    shutil.copytree(ROOT / "tests/fixtures/lms/canvas", folder / "download")
    (folder / "course" / "exercises").mkdir(parents=True)  # authoring.md's ~/course/exercises, empty at first
    course = folder / "my-course"
    shutil.copytree(ROOT / "exercises", course / "exercises")
    (course / "roster.csv").write_text(_COURSE_ROSTER)
    (folder / "tool-private.pem").write_text(_private_key())
    return folder


def _private_key() -> str:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption()).decode()


#: set before each `sh` block: a `grade` (or `python -m grader`) that exits 2 (a problem you can fix) or 3 (the
#: grader's bug) fails the block, 0 and 1 are grades; any other command that fails fails it too (errexit)
PRELUDE = r"""
set -e -u -o pipefail
_graded() { local rc=0; "$@" || rc=$?; if [ "$rc" -gt 1 ]; then echo "docs: '$*' exited $rc" >&2; exit 90; fi; }
grade() { _graded command grade "$@"; }
python() {
  if [ "${1:-}" = -m ] && [ "${2:-}" = grader ]; then _graded command python "$@"; else command python "$@"; fi
}
"""

_SECONDS = re.compile(r"\b\d+(\.\d+)? s\b")


def output_matches(expected: str, got: str) -> bool:
    """doctest's comparison with ELLIPSIS; times in seconds and trailing spaces are not compared."""
    def clean(text: str) -> str:
        return "\n".join(line.rstrip() for line in _SECONDS.sub("N s", text).splitlines()) + "\n"
    return doctest.OutputChecker().check_output(clean(expected), clean(got), doctest.ELLIPSIS)
