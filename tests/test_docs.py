"""The docs cannot drift: every code block of README.md and docs/ says what it is, and each one that can run here
runs (shell blocks on a fresh course, outputs compared, files written and read, Python as doctests); every command,
option and environment variable of the grader is documented, and every link leads somewhere."""

from __future__ import annotations

import argparse
import doctest
import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml
from doc_blocks import DOCS, KINDS, PRELUDE, ROOT, Block, blocks, make_course, output_matches

from grader.cli_commands import COMMANDS, command
from grader.cli_file import grade_parser

#: where options and variables may be documented: the guides, and the exercise format's reference
PROSE = (*DOCS, ROOT / "exercises" / "README.md")


def _all_blocks() -> list[Block]:
    return [block for doc in DOCS for block in blocks(doc)]


def test_every_block_says_what_it_is(capsys: pytest.CaptureFixture[str]) -> None:
    """Each block is run, compared, written, parsed, or marked as not code or not run (with why); listed."""
    found = _all_blocks()
    with capsys.disabled():
        counts = {kind: sum(block.kind == kind for block in found) for kind in KINDS}
        print(f"\ndocs: {len(found)} code blocks: " + ", ".join(f"{n} {kind}" for kind, n in counts.items() if n))
        for block in found:
            if block.kind in ("not run", "not code"):
                print(f"  {block.kind:8}  {block.where:26} {block.not_run or block.lang}")
    unmarked = [block.where for block in found if block.kind == "unmarked"]
    assert not unmarked, f"blocks with no mark (sh, text output, lang file=PATH, text, or <!-- not run: why -->): " \
                         f"{unmarked}"
    assert sum(block.kind in ("run", "output", "file") for block in found) >= 15


def test_the_readme_is_short_and_its_set_up_commands_are_those_ci_runs() -> None:
    readme = ROOT / "README.md"
    assert len(readme.read_text(encoding="utf-8").splitlines()) < 250
    set_up = blocks(readme)[0]
    grade = "grade submissions/node-mul/correct_lesson_style.py"
    install = f"pip install torch==2.13.0 -e '.[dev]' && {grade}"
    assert set_up.text.splitlines() == [install, "python -m pytest"]
    # a script or a CI step reads the set-up's exit code: a working install must end in 0
    ran = subprocess.run([sys.executable, "-m", "grader", *grade.split()[1:]], cwd=ROOT, capture_output=True,
                         text=True, timeout=300)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert "python -m pytest" in ci and "pip install --quiet -e '.[dev]'" in ci


def _headings(doc: Path) -> set[str]:
    """GitHub's anchors: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"^(```|~~~).*?^\1", "", doc.read_text(encoding="utf-8"), flags=re.M | re.S)
    titles = re.findall(r"^#+ (.+)$", text, re.M)
    return {re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-") for title in titles}


def test_every_link_leads_somewhere() -> None:
    broken = []
    for doc in DOCS:
        for link in re.findall(r"\]\(([^)\s]+)\)", doc.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", link):
                continue
            path, _, anchor = link.partition("#")
            target = (doc.parent / path) if path else doc
            if not target.exists():
                broken.append(f"{doc.relative_to(ROOT)}: {link} (no such file)")
            elif anchor and target.suffix == ".md" and anchor not in _headings(target):
                broken.append(f"{doc.relative_to(ROOT)}: {link} (no such heading)")
    assert not broken, broken


def _options(parser: argparse.ArgumentParser) -> list[str]:
    return [option for action in parser._actions
            if action.help != argparse.SUPPRESS and not isinstance(action, argparse._HelpAction)
            for option in action.option_strings if option.startswith("--")]


def test_every_command_and_option_is_documented() -> None:
    """Each `grade COMMAND` appears in the docs, and each of its options in a paragraph or block naming it."""
    paragraphs = [p for doc in PROSE for p in re.split(r"\n\s*\n", doc.read_text(encoding="utf-8"))]
    missing = [f"grade {name} {option}"
               for name in COMMANDS for option in ["", *_options(command(name).parser())]
               if not any(f"grade {name}" in p and option in p for p in paragraphs)]
    missing += [f"grade FILE {option}" for option in _options(grade_parser())
                if not any(re.search(rf"\bgrade [^`\n]*{option}\b", p) for p in paragraphs)]
    assert not missing, missing


def test_every_environment_variable_the_grader_reads_is_documented() -> None:
    code = "\n".join(path.read_text(encoding="utf-8") for path in (ROOT / "grader").rglob("*") if path.is_file()
                     and path.suffix in (".py", ".tmpl"))
    names = set(re.findall(r"\bAUTOGRADER_[A-Z_]+\b", code))
    prose = "\n".join(doc.read_text(encoding="utf-8") for doc in PROSE)
    assert len(names) >= 8 and not [name for name in sorted(names) if name not in prose]


def test_python_and_data_blocks_run_or_parse() -> None:
    """Doctests run; other Python compiles; TOML, YAML and JSON parse (a file= block is parsed here too)."""
    parsers = {"toml": tomllib.loads, "yaml": yaml.safe_load, "json": json.loads}
    for block in _all_blocks():
        if block.kind == "doctest":
            test = doctest.DocTestParser().get_doctest(block.text, {}, block.where, str(block.doc), block.line)
            runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
            runner.run(test)
            assert runner.summarize(verbose=False).failed == 0, block.where
        elif block.lang == "python" and block.kind in ("compile", "file"):
            compile(block.text, block.where, "exec")
        elif block.lang in parsers and block.kind in ("parse", "file"):
            parsers[block.lang](block.text)


def _env(home: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items()
           if not key.startswith("AUTOGRADER_") or key == "AUTOGRADER_CACHE"}  # the suite's own expected cache
    env.update(HOME=str(home), PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}")
    return env


def _runnable(doc: Path) -> bool:
    return any(block.kind in ("run", "output", "file") for block in blocks(doc))


@pytest.mark.slow  # each guide's commands take seconds to a minute (validate, batches, notebooks, torch exercises)
@pytest.mark.parametrize("doc", [pytest.param(doc, id=str(doc.relative_to(ROOT))) for doc in DOCS if _runnable(doc)])
def test_the_shell_blocks_run_on_a_fresh_course(doc: Path, tmp_path: Path) -> None:
    """A guide's blocks in order, in one fresh course folder: `sh` run by bash, `file=` written, `output` compared."""
    course = make_course(tmp_path)
    env = _env(course)
    last: tuple[Block, str] | None = None
    for block in blocks(doc):
        if block.kind == "file":
            target = course / str(block.file)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(block.text, encoding="utf-8")
        elif block.kind == "run":
            done = subprocess.run(["bash", "-c", PRELUDE + block.text], cwd=course, env=env, capture_output=True,
                                  text=True, timeout=600)
            assert done.returncode == 0, f"{block.where} failed ({done.returncode}):\n{block.text}\n" \
                                         f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
            last = (block, done.stdout)
        elif block.kind == "output":
            assert last is not None, f"{block.where}: an output block needs an sh block before it"
            assert output_matches(block.text, last[1]), f"{block.where}: the output of {last[0].where} drifted:\n" \
                                                        f"{last[1]}"


def _named(text: str, module: str) -> bool:
    """Whether `text` names `module` (grader.run.read.load) by its last part, as code."""
    return re.search(rf"[`/]{re.escape(module.rsplit('.', 1)[-1])}[`./]", text) is not None


def test_one_file_is_followed_through_every_module_it_loads() -> None:
    """docs/how-it-works.md follows `grade FILE` to its printed report: every module of the grader
    that grading one file loads is named on the way."""
    script = ("import sys; from grader.cli import main; main([sys.argv[1], '--color', 'never']); "
              "print(' '.join(m for m in sys.modules if m.startswith(('grader.', 'reference.'))))")
    sample = ROOT / "submissions" / "node-mul" / "swapped_slopes.py"
    done = subprocess.run([sys.executable, "-c", script, str(sample)], capture_output=True,
                          text=True, cwd=ROOT, timeout=300, check=False)
    loaded = done.stdout.splitlines()[-1].split()
    assert "grader.judge.session" in loaded, done.stderr
    text = (ROOT / "docs" / "how-it-works.md").read_text(encoding="utf-8")
    walk = text[text.index("### One file, from `grade FILE`"):]
    packages = {m.rpartition(".")[0] for m in loaded}
    missing = [m for m in loaded if m not in packages and not _named(walk, m)]
    assert not missing, f"the walk from grade FILE leaves out {missing}"


def test_the_map_names_every_module_of_the_command_line_course_core_judge_run_and_reference() -> None:
    """grader/README.md names each of these modules, one line each."""
    text = (ROOT / "grader" / "README.md").read_text(encoding="utf-8")
    paths = [*(ROOT / "grader").glob("cli*.py"), ROOT / "grader" / "__main__.py"]
    for folder in ("grader/course", "grader/core", "grader/judge", "grader/run", "reference"):
        paths += (ROOT / folder).rglob("*.py")
    missing = [str(p.relative_to(ROOT)) for p in paths
               if p.stem != "__init__" and f"- `{p.stem}`:" not in text]
    assert not missing, f"grader/README.md does not name {missing}"


def test_the_map_names_every_module_of_the_server_and_the_outputs() -> None:
    """grader/README.md names each module of service/ and outputs/, one line each, in the order one
    upload takes through the server (a migration of its store is one revision among the versions,
    named after its id)."""
    text = (ROOT / "grader" / "README.md").read_text(encoding="utf-8")
    paths = []
    for folder in ("grader/service", "grader/outputs"):
        paths += [p for p in (ROOT / folder).rglob("*.py") if "versions" not in p.parts]
    missing = [str(p.relative_to(ROOT)) for p in paths
               if p.stem != "__init__" and f"- `{p.stem}`:" not in text]
    assert not missing, f"grader/README.md does not name {missing}"
