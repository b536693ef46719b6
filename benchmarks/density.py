"""How much each line holds: the figures the house rules are measured by, over any folders of Python.

    python benchmarks/density.py [FOLDER ...] [--each] [--list]

Default folders: grader and reference. For each folder, and for them all:
- the mean characters per non-blank line (indentation included, the newline not);
- the share of non-blank lines over 100 characters;
- comprehensions (list, set, dict, generator) per 1,000 lines, and those with two `for` clauses or more;
- AST nodes per line;
- functions over 60 lines (from `def` to the last line of the body), and functions with 8 parameters or
  more (self and cls not counted; *args and **kwargs counted).
`--each` prints the figures of every module; `--list` names each function over a limit, and each
comprehension with two `for` clauses.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: the house rules: a function's lines, its parameters, a line's characters
MAX_FUNCTION_LINES = 60
MAX_PARAMETERS = 7
MAX_LINE = 100
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass
class Figures:
    """What a set of modules holds, summed."""

    modules: int = 0
    lines: int = 0
    non_blank: int = 0
    characters: int = 0
    long_lines: int = 0
    comprehensions: int = 0
    nodes: int = 0
    #: "path:line name (n lines)" of each function over MAX_FUNCTION_LINES
    long_functions: list[str] = field(default_factory=list)
    #: "path:line name (n parameters)" of each function with more than MAX_PARAMETERS
    wide_functions: list[str] = field(default_factory=list)
    #: "path:line" of each comprehension with two `for` clauses or more
    double_for: list[str] = field(default_factory=list)

    def add(self, other: Figures) -> None:
        self.modules += other.modules
        self.lines += other.lines
        self.non_blank += other.non_blank
        self.characters += other.characters
        self.long_lines += other.long_lines
        self.comprehensions += other.comprehensions
        self.nodes += other.nodes
        self.long_functions += other.long_functions
        self.wide_functions += other.wide_functions
        self.double_for += other.double_for

    def row(self, name: str) -> str:
        per_line = self.characters / max(self.non_blank, 1)
        long_share = 100 * self.long_lines / max(self.non_blank, 1)
        per_k = 1000 * self.comprehensions / max(self.lines, 1)
        nodes = self.nodes / max(self.lines, 1)
        return (f"{name:<28}{self.modules:>5}{self.lines:>8}{per_line:>8.1f}{long_share:>8.1f}"
                f"{per_k:>8.1f}{len(self.double_for):>6}{nodes:>7.1f}"
                f"{len(self.long_functions):>6}{len(self.wide_functions):>6}")


HEADER = (f"{'tree':<28}{'mods':>5}{'lines':>8}{'chars':>8}{'>100 %':>8}"
          f"{'comp/k':>8}{'2for':>6}{'nodes':>7}{'>60':>6}{'>=8p':>6}")


def parameters(function: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """How many parameters `function` takes, self and cls aside."""
    arguments = function.args
    names = [a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)]
    if names and names[0] in ("self", "cls"):
        names = names[1:]
    return len(names) + (arguments.vararg is not None) + (arguments.kwarg is not None)


def measure(path: Path) -> Figures:
    """The figures of one module."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    tree = ast.parse(text)
    where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    figures = Figures(modules=1, lines=len(lines))
    for line in lines:
        if line.strip():
            figures.non_blank += 1
            figures.characters += len(line)
        if len(line) > MAX_LINE:
            figures.long_lines += 1
    for node in ast.walk(tree):
        figures.nodes += 1
        if isinstance(node, _COMPREHENSIONS):
            figures.comprehensions += 1
            if len(node.generators) > 1:
                figures.double_for.append(f"{where}:{node.lineno}")
        if isinstance(node, _FUNCTIONS):
            size = (node.end_lineno or node.lineno) - node.lineno + 1
            if size > MAX_FUNCTION_LINES:
                figures.long_functions.append(f"{where}:{node.lineno} {node.name} ({size} lines)")
            count = parameters(node)
            if count > MAX_PARAMETERS:
                figures.wide_functions.append(f"{where}:{node.lineno} {node.name} ({count} parameters)")
    return figures


def modules(folder: Path) -> Iterable[Path]:
    return sorted(folder.rglob("*.py")) if folder.is_dir() else [folder]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("folders", nargs="*", type=Path, default=[ROOT / "grader", ROOT / "reference"])
    parser.add_argument("--each", action="store_true", help="the figures of every module")
    parser.add_argument("--list", action="store_true", help="name every function over a limit")
    args = parser.parse_args(argv)
    print(HEADER)
    total = Figures()
    for folder in args.folders:
        figures = Figures()
        for path in modules(folder):
            found = measure(path)
            if args.each:
                print(found.row(f"  {path.relative_to(folder.parent)}"))
            figures.add(found)
        print(figures.row(str(folder.name)))
        total.add(figures)
    if len(args.folders) > 1:
        print(total.row("all"))
    if args.list:
        for title, names in (("functions over 60 lines", total.long_functions),
                             (f"functions over {MAX_PARAMETERS} parameters", total.wide_functions),
                             ("comprehensions with two `for` clauses", total.double_for)):
            print(f"\n{title}: {len(names)}")
            for name in names:
                print(f"  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
