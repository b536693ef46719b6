"""The package's layers (grader/README.md): imports flow one way, cli -> service -> course -> outputs -> judge -> run
-> core -> reference. Read from the source, lazy imports inside functions included, so that a shortcut fails here."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: lowest first: a module may import its own layer and those below it
LAYERS = ("reference", "core", "run", "judge", "outputs", "course", "service", "cli")
MAX_LINES = 350


def layer_of(module: str) -> str:
    parts = module.split(".")
    if parts[0] == "reference":
        return "reference"
    if len(parts) > 2 or (len(parts) == 2 and parts[1] in LAYERS):
        return parts[1]
    return "cli"  # grader.cli, grader.cli_*, grader.__main__


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
                         "grader.run.guard", "grader.run.confine", "grader.run.child"),
    "grader.run.read": ("grader.core", "grader.run.read"),
    "grader.course.pack": ("reference", "grader.core", "grader.run", "grader.judge", "grader.outputs",
                           "grader.course.secret", "grader.course.pack"),
    "grader.course.lms": ("grader.core", "grader.outputs", "grader.course.selection", "grader.course.manifest",
                          "grader.course.classfiles", "grader.course.batch", "grader.course.lms"),
    "grader.service.db": ("grader.core", "grader.service.db"),
    "grader.service.work": ("grader.core", "grader.run", "grader.judge", "grader.outputs", "grader.course",
                            "grader.service.db", "grader.service.config", "grader.service.work"),
}
#: modules a room may never import, whatever its layer allows: the judge's pipeline calls the diagnosis
NEVER = {
    "grader.judge.diagnose": ("grader.judge.grading", "grader.judge.hidden_runs"),
    "grader.judge.tensor": ("grader.judge.grading", "grader.judge.hidden_runs"),
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


def test_no_folder_holds_more_than_twenty_modules() -> None:
    counts: dict[str, int] = {}
    for path in (ROOT / "grader").rglob("*.py"):
        if path.name != "__init__.py" and "migrations" not in path.parts:
            counts[str(path.parent.relative_to(ROOT))] = counts.get(str(path.parent.relative_to(ROOT)), 0) + 1
    crowded = {folder: n for folder, n in counts.items() if n > 20}
    assert not crowded, f"split these into rooms (grader/README.md): {crowded}"


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


def test_every_module_is_in_a_layer_and_under_the_size_limit() -> None:
    loose = [m for m in modules() if m.count(".") == 1 and layer_of(m) == "cli"
             and not m.startswith(("grader.cli", "grader.__main__"))]
    assert not loose, f"put these in a layer's subpackage: {loose}"
    long = {m: n for m, p in modules().items() if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, f"modules over {MAX_LINES} lines (split them at a seam): {long}"
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
