"""Public solutions of a tensor homework (CS231n's layers.py), graded as they are: fair scores, no wrong name.

corpus/tensor/manifest.yaml says where each file comes from and, for each exercise, what reading the
code finds and which mistake names are right for it. Each exercise grades the whole corpus with
`grade batch`; the test prints precision (named mistakes that are right) and recall (real mistakes
named) and holds the scores to the manifest's.
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


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], dict[str, Any]]:
    reports = {}
    for exercise in EXERCISES:
        out = tmp_path_factory.mktemp(exercise)
        assert main(["batch", str(CORPUS), "--exercise", exercise, "--out", str(out)]) == 0
        for path in (out / "students").glob("*/report.json"):
            reports[(f"{path.parent.name}.py", exercise)] = json.loads(path.read_text(encoding="utf-8"))
    return reports


def test_every_file_is_recorded_with_its_source() -> None:
    files = {entry["file"] for entry in MANIFEST}
    assert files == {p.name for p in CORPUS.glob("*.py")} and len(files) >= 5
    for entry in MANIFEST:
        assert {"repo", "path", "commit", "verdicts"} <= set(entry) and len(entry["commit"]) == 40


def test_the_corpus_gets_fair_scores_and_no_wrong_name(graded: dict[tuple[str, str], dict[str, Any]],
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    named_right = named_wrong = mistakes = found = 0
    rows = []
    for entry in MANIFEST:
        for exercise, verdict in entry["verdicts"].items():
            report = graded[(entry["file"], exercise)]
            names = {c["diagnosis"]["mistake"] for e in report["exercises"] for c in e["checks"]
                     if c.get("diagnosis") and c["diagnosis"]["kind"] != "unknown"}
            wrong = names - set(verdict["right"])
            named_right += len(names & set(verdict["right"]))
            named_wrong += len(wrong)
            mistakes += bool(verdict["right"])
            found += bool(names & set(verdict["right"]))
            rows.append((entry["file"], exercise, report["score"], verdict["score"], sorted(names), sorted(wrong)))
    with capsys.disabled():
        print(f"\ntensor corpus: {len(rows)} gradings of {len(MANIFEST)} public files")
        for file, exercise, score, want, names, wrong in rows:
            print(f"  {file:36} {exercise:22} {score:>4g}/{want:<4g} named {', '.join(names) or '-'}"
                  + (f"  WRONG: {', '.join(wrong)}" if wrong else ""))
        precision = named_right / (named_right + named_wrong) if named_right + named_wrong else 1.0
        print(f"  precision {named_right}/{named_right + named_wrong} = {precision:.2f}; "
              f"recall {found}/{mistakes} = {found / max(mistakes, 1):.2f}")
    assert named_wrong == 0
    assert [(f, e, s, w) for f, e, s, w, _, _ in rows if s != w] == []
    assert found == mistakes
