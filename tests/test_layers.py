"""The package's layers (grader/README.md): imports flow one way, cli -> service -> course -> outputs -> judge -> run
-> core -> reference. Read from the source, lazy imports inside functions included, so that a shortcut fails here."""

from __future__ import annotations

import ast
import functools
import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: lowest first: a module may import its own layer and those below it
LAYERS = ("reference", "core", "run", "judge", "outputs", "course", "service", "cli")
#: where the house rules on functions and lines hold (benchmarks/density.py measures them): all of a folder
#: or one module, until the whole package follows them
HOUSE_RULES = (
    "grader/run",
    "grader/service",
    "grader/outputs",
    "grader/course",
    "grader/core",
    "reference",
    "grader/__init__.py",
    "grader/__main__.py",
    "grader/cli.py",
    "grader/cli_batch.py",
    "grader/cli_commands.py",
    "grader/cli_complete.py",
    "grader/cli_course.py",
    "grader/cli_file.py",
    "grader/cli_options.py",
    "grader/cli_service.py",
    "grader/cli_store.py",
    "grader/judge",
)


def layer_of(module: str) -> str:
    parts = module.split(".")
    if parts[0] == "reference":
        return "reference"
    if len(parts) > 2 or (len(parts) == 2 and parts[1] in LAYERS):
        return parts[1]
    return "cli"  # grader.cli, grader.cli_*, grader.__main__


@functools.cache
def modules() -> dict[str, Path]:
    found = {}
    for package in ("grader", "reference"):
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports(path: Path, module: str) -> list[tuple[int, str]]:
    """Every module `path` imports from grader or reference, with its line; relative imports resolved."""
    found = []
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parent + ([base] if base else []))
            found.append((node.lineno, base))
            # `from grader.run import sandbox` imports the submodule grader.run.sandbox
            found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names
                      if f"{base}.{alias.name}" in modules()]
    return [(line, name) for line, name in found if name.split(".")[0] in ("grader", "reference")]


@pytest.mark.parametrize("module", sorted(m for m in modules() if m != "grader"))
def test_imports_flow_one_way(module: str) -> None:
    path = modules()[module]
    rank = LAYERS.index(layer_of(module))
    wrong = [f"{path.relative_to(ROOT)}:{line} imports {name} ({layer_of(name)})"
             for line, name in imports(path, module)
             if name != "grader" and LAYERS.index(layer_of(name)) > rank]
    assert not wrong, f"{module} is in {layer_of(module)}, which may import only " \
                      f"{', '.join(LAYERS[: rank + 1])}:\n" + "\n".join(wrong)


#: the rooms inside a layer (each subpackage's docstring says why): what a module in each may import, by prefix
SUB_LAYERS = {
    "grader.run.confine": ("grader.core", "grader.run.policy", "grader.run.confine"),
    "grader.run.guard": ("grader.core", "grader.run.policy", "grader.run.guard"),
    "grader.run.child": ("grader.core", "grader.run.policy", "grader.run.inputs", "grader.run.observed",
                         "grader.run.wire", "grader.run.guard", "grader.run.confine", "grader.run.child"),
    "grader.run.read": ("grader.core", "grader.run.read"),
    "grader.course.pack": ("reference", "grader.core", "grader.run", "grader.judge", "grader.outputs",
                           "grader.course.secret", "grader.course.pack"),
    "grader.course.lms": ("grader.core", "grader.outputs", "grader.course.selection", "grader.course.manifest",
                          "grader.course.classfiles", "grader.course.disk", "grader.course.lms"),
    "grader.service.db": ("grader.core", "grader.service.db"),
    "grader.service.work": ("grader.core", "grader.run", "grader.judge", "grader.outputs", "grader.course",
                            "grader.service.db", "grader.service.config", "grader.service.work"),
}
#: modules a room may never import, whatever its layer allows: the judge's pipeline calls the diagnosis
NEVER = {
    "grader.judge.diagnose": ("grader.judge.grading", "grader.judge.session", "grader.judge.hidden_runs"),
    "grader.judge.tensor": ("grader.judge.grading", "grader.judge.session", "grader.judge.hidden_runs"),
}


def _within(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


@pytest.mark.parametrize("room", sorted({**SUB_LAYERS, **NEVER}))
def test_the_rooms_import_what_their_docstring_says(room: str) -> None:
    found = {m: p for m, p in modules().items() if _within(m, (room,))}
    assert len(found) > 1, f"{room} has no modules: the rules above name a room that moved"
    wrong = []
    for module, path in found.items():
        for line, name in imports(path, module):
            if name == "grader":  # the package itself, for where it is (run.confine.tree): no code of a layer
                continue
            allowed = SUB_LAYERS.get(room)
            if (allowed is not None and not _within(name, allowed)) or _within(name, NEVER.get(room, ())):
                wrong.append(f"{path.relative_to(ROOT)}:{line} imports {name}")
    assert not wrong, f"{room} may import only {SUB_LAYERS.get(room, 'its layer')}, never {NEVER.get(room, ())}:\n" \
                      + "\n".join(wrong)


def test_the_rooms_rule_sees_a_child_module_reaching_the_trusted_side(tmp_path: Path) -> None:
    source = tmp_path / "child.py"
    source.write_text("def f():\n    from grader.run.sandbox import Sandbox\n")
    found = [name for _, name in imports(source, "grader.run.child.child")]
    assert found == ["grader.run.sandbox"] and not _within(found[0], SUB_LAYERS["grader.run.child"])


def test_the_package_root_is_the_public_api_only() -> None:
    """`grader` itself imports its API lazily (`grade --help` must not import torch) and defines nothing else."""
    tree = ast.parse((ROOT / "grader" / "__init__.py").read_text(encoding="utf-8"))
    runtime = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))
               and (getattr(n, "module", "") or "").startswith("grader")]
    assert not runtime


def test_every_module_is_in_a_layer_and_says_what_it_is_for() -> None:
    loose = [m for m in modules() if m.count(".") == 1 and layer_of(m) == "cli"
             and not m.startswith(("grader.cli", "grader.__main__"))]
    assert not loose, f"put these in a layer's subpackage: {loose}"
    undocumented = [m for m, p in modules().items() if p.stat().st_size
                    and ast.get_docstring(ast.parse(p.read_text(encoding="utf-8"))) is None]
    assert not undocumented, f"each module opens with its one-line purpose: {undocumented}"


def test_the_checker_sees_a_wrong_import(tmp_path: Path) -> None:
    """The rule itself: a run module importing the judge is caught, lazily inside a function too."""
    source = tmp_path / "sandbox.py"
    source.write_text("def f():\n    from grader.judge.check import check_exercise\n"
                      "    from ..outputs import formats\n")
    found = imports(source, "grader.run.sandbox")
    assert [(line, layer_of(name)) for line, name in found] == [(2, "judge"), (3, "outputs"), (3, "outputs")]


def _density() -> Any:
    """benchmarks/density.py, which measures the house rules."""
    name = "benchmarks_density"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / "density.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # a dataclass's module must be found there
        spec.loader.exec_module(module)
    return sys.modules[name]


@pytest.mark.parametrize("where", HOUSE_RULES)
def test_the_house_rules_hold(where: str) -> None:
    """Functions under 60 lines and 8 parameters, lines under 100 characters, and no comprehension of two
    `for` clauses (a loop with a named variable reads better): the rules a module is cut by, not its length."""
    density = _density()
    found = density.Figures()
    for path in density.modules(ROOT / where):
        found.add(density.measure(path))
    assert found.modules, f"{where} holds no module: HOUSE_RULES names a place that moved"
    long_lines = []
    for path in density.modules(ROOT / where):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if len(line) > density.MAX_LINE:
                long_lines.append(f"{path.relative_to(ROOT)}:{number}")
    # a migration records a released change of the schema as it was made: it is not cut up
    long_functions = [name for name in found.long_functions if "/migrations/" not in name]
    broken = {"functions over 60 lines": long_functions,
              "functions over 7 parameters": found.wide_functions,
              "comprehensions with two `for` clauses": found.double_for,
              "lines over 100 characters": long_lines}
    assert not any(broken.values()), "\n".join(f"{rule}: {names}" for rule, names in broken.items() if names)


def test_the_house_rules_see_what_breaks_them(tmp_path: Path) -> None:
    """The rules' measure itself: a long function, a wide one, a comprehension of two `for` clauses."""
    density = _density()
    source = tmp_path / "dense.py"
    body = "\n".join(f"    x{n} = {n}" for n in range(60))
    source.write_text(f"def long():\n{body}\n\n\ndef wide(self, a, b, c, d, e, f, g, *h):\n"
                      "    return [x for y in h for x in y]\n")
    found = density.measure(source)
    assert [name.split()[-3] for name in found.long_functions] == ["long"]
    assert [name.split()[-3] for name in found.wide_functions] == ["wide"]
    assert len(found.double_for) == 1


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles of `graph` (its strongly connected parts of two modules or more), each
    found by an iterative walk."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []
    for root in graph:
        if root in order:
            continue
        walk = [(root, iter(sorted(graph[root])))]
        order[root] = low[root] = len(order)
        stack.append(root)
        while walk:
            node, rest = walk[-1]
            step = next(rest, None)
            if step is not None and step not in order:
                order[step] = low[step] = len(order)
                stack.append(step)
                walk.append((step, iter(sorted(graph[step]))))
            elif step is not None and step in stack:
                low[node] = min(low[node], order[step])
            elif step is None:
                walk.pop()
                if walk:
                    low[walk[-1][0]] = min(low[walk[-1][0]], low[node])
                if low[node] == order[node]:
                    part = stack[stack.index(node):]
                    del stack[stack.index(node):]
                    if len(part) > 1:
                        found.append(sorted(part))
    return found


def test_no_module_under_the_house_rules_is_in_an_import_cycle() -> None:
    """Two modules that import each other (lazily too) are one job cut in two, or a missing
    third: the house rules' modules have none. The package root is left out: it imports its
    API lazily, and every module may import it for its version."""
    found = modules()
    graph = {}
    for module, path in found.items():
        if module != "grader":
            named = {name for _, name in imports(path, module)}
            graph[module] = {n for n in named if n in found and n not in ("grader", module)}
    ruled = []
    for where in HOUSE_RULES:
        ruled += [m for m, p in found.items() if p.is_relative_to(ROOT / where)]
    touching = [c for c in cycles(graph) if set(c) & set(ruled)]
    assert not touching, f"import cycles: {touching}"


def test_the_cycle_finder_sees_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(graph) == [["a", "b", "c"]]
