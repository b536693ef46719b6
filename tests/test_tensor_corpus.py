"""Public tensor homework nobody here wrote, graded as it is: fair scores, no wrong name, and the recall printed.

corpus/tensor/manifest.yaml says where each file comes from (repository, path, commit), the lines
taken and the adapter appended where the file's interface is not the exercise's (at most three
lines, each recorded), and, for each exercise it is graded as, the score and what reading the code
finds: each real mistake with the names that are right for it. Each exercise grades its files with
`grade batch`; the test prints precision (names given that are right) and recall (real mistakes
that got a right name), and holds the scores to the manifest's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from grader.cli import main

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus" / "tensor"
MANIFEST = yaml.safe_load((CORPUS / "manifest.yaml").read_text(encoding="utf-8"))["files"]
EXERCISES = sorted({exercise for entry in MANIFEST for exercise in entry["verdicts"]})


def prepared(entry: dict[str, Any]) -> str:
    """The file as graded: the lines the manifest takes, then its adapter."""
    text = (CORPUS / entry["file"]).read_text(encoding="utf-8")
    lines = entry.get("lines", "all")
    if lines != "all":
        rows = text.splitlines(keepends=True)
        text = "".join(line for first, last in lines for line in rows[first - 1:last])
    return text + ("\n" + entry["adapter"] if entry.get("adapter") else "")


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], dict[str, Any]]:
    reports = {}
    for exercise in EXERCISES:
        folder = tmp_path_factory.mktemp(f"in-{exercise}")
        for entry in MANIFEST:
            if exercise in entry["verdicts"]:
                (folder / entry["file"]).write_text(prepared(entry), encoding="utf-8")
        out = tmp_path_factory.mktemp(exercise)
        assert main(["batch", str(folder), "--exercise", exercise, "--out", str(out)]) == 0
        for path in (out / "students").glob("*/report.json"):
            reports[(f"{path.parent.name}.py", exercise)] = json.loads(path.read_text(encoding="utf-8"))
    return reports


def test_every_file_is_recorded_with_its_source() -> None:
    files = {entry["file"] for entry in MANIFEST}
    assert files == {p.name for p in CORPUS.glob("*.py")} and len(files) >= 5
    for entry in MANIFEST:
        assert {"repo", "path", "commit", "verdicts"} <= set(entry) and len(entry["commit"]) == 40
        assert len((entry.get("adapter") or "").strip().splitlines()) <= 3
        for verdict in entry["verdicts"].values():
            assert {"score", "truth", "mistakes"} <= set(verdict)
            assert all(isinstance(names, list) and names for names in verdict["mistakes"])


@pytest.mark.slow
def test_the_corpus_gets_fair_scores_and_no_wrong_name(graded: dict[tuple[str, str], dict[str, Any]],
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    named_right = named_wrong = mistakes = found = 0
    rows = []
    for entry in MANIFEST:
        for exercise, verdict in entry["verdicts"].items():
            report = graded[(entry["file"], exercise)]
            names = {c["diagnosis"]["mistake"] for e in report["exercises"] for c in e["checks"]
                     if c.get("diagnosis") and c["diagnosis"]["kind"] != "unknown"}
            right = {name for names_of_one in verdict["mistakes"] for name in names_of_one}
            wrong = names - right
            named_right += len(names & right)
            named_wrong += len(wrong)
            mistakes += len(verdict["mistakes"])
            hits = sum(1 for names_of_one in verdict["mistakes"] if names & set(names_of_one))
            found += hits
            rows.append((entry["file"], exercise, report["score"], verdict["score"], sorted(names), sorted(wrong),
                         f"{hits}/{len(verdict['mistakes'])}"))
    with capsys.disabled():
        print(f"\ntensor corpus: {len(rows)} gradings of {len(MANIFEST)} public files")
        for file, exercise, score, want, names, wrong, recalled in rows:
            print(f"  {file:40} {exercise:22} {score:>4g}/{want:<4g} {recalled:>4} named {', '.join(names) or '-'}"
                  + (f"  WRONG: {', '.join(wrong)}" if wrong else ""))
        print(f"tensor: precision {named_right}/{named_right + named_wrong}, recall {found}/{mistakes} "
              f"({found / max(mistakes, 1):.0%})")
    assert named_wrong == 0
    assert [(f, e, s, w) for f, e, s, w, *_ in rows if s != w] == []
    assert found >= 0.7 * mistakes
