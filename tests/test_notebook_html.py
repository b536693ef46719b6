"""check()'s HTML under JupyterLab's own stylesheets (tests/fixtures/jupyterlab, from the jupyterlab wheel), in
headless Chromium: read as a student reads it in JupyterLab and Notebook 7, whose rules for output tables
(`:not(.jp-RenderedMarkdown).jp-RenderedHTMLCommon td { text-align: right }`, centred fixed-layout tables) are
more specific than a plain `.ag-report td`."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from browser import render

from grader.judge.catalog import Catalog
from grader.judge.report import Report
from grader.judge.session import grade
from grader.outputs.notebook_html import report_html
from grader.run.sandbox import Sandbox

ROOT = Path(__file__).resolve().parent.parent
JUPYTERLAB = ROOT / "tests" / "fixtures" / "jupyterlab"

#: reads the computed style of every cell of our tables, as the browser laid them out, into <pre id="styles">
PROBE = """
<script>
window.addEventListener("load", () => {
  const cells = [...document.querySelectorAll(".ag-report table td")].map(td => {
    const style = getComputedStyle(td);
    return {cls: td.className, align: style.textAlign, text: td.textContent.trim().slice(0, 40),
            background: getComputedStyle(td.parentElement).backgroundColor};
  });
  const table = document.querySelector(".ag-report table");
  const output = document.querySelector(".jp-OutputArea-output").getBoundingClientRect();
  const box = table.getBoundingClientRect();
  const found = {cells, layout: getComputedStyle(table).tableLayout, tableLeft: box.left - output.left,
                 outputWidth: output.width, tableWidth: box.width};
  document.getElementById("styles").textContent = JSON.stringify(found);
});
</script>
"""


def jupyterlab_page(body: str, *, probe: bool) -> str:
    """`body` where JupyterLab puts an HTML output: a cell's output area, its styles in the page's head."""
    styles = "".join(f"<style>\n{(JUPYTERLAB / name).read_text(encoding='utf-8')}\n</style>\n"
                     for name in ("theme-light.css", "rendermime-base.css", "outputarea-base.css"))
    output = (f'<div class="jp-Cell jp-CodeCell"><div class="jp-OutputArea jp-Cell-outputArea">'
              f'<div class="jp-OutputArea-child"><div class="jp-OutputPrompt jp-OutputArea-prompt">[3]:</div>'
              f'<div class="lm-Widget jp-RenderedHTMLCommon jp-RenderedHTML jp-OutputArea-output" '
              f'data-mime-type="text/html">{body}</div></div></div></div>')
    return (f'<!DOCTYPE html><html><head><meta charset="utf-8">{styles}</head>'
            f'<body class="jp-ThemedContainer" style="font-family: var(--jp-ui-font-family); padding: 1em; '
            f'background: var(--jp-layout-color0)">{output}'
            f'<pre id="styles"></pre>{PROBE if probe else ""}</body></html>')


@pytest.fixture(scope="module")
def swapped(catalog: Catalog, sandbox: Sandbox) -> Report:
    return grade(ROOT / "submissions" / "node-mul" / "swapped_slopes.py", [catalog.load("node-mul")], sandbox=sandbox)


def test_check_reads_right_under_jupyterlabs_stylesheet(swapped: Report, tmp_path: Path) -> None:
    page = tmp_path / "jupyterlab.html"
    page.write_text(jupyterlab_page(report_html(swapped), probe=True), encoding="utf-8")
    dom = render(page)
    found = json.loads(re.search(r'<pre id="styles">(.*?)</pre>', dom, re.S)[1])  # type: ignore[index]
    cells = found["cells"]
    assert len(cells) > 10
    points = [c for c in cells if "ag-points" in c["cls"]]
    words = [c for c in cells if "ag-points" not in c["cls"]]
    assert points and all(c["align"] == "right" for c in points)
    # the status, the check's name and the expanded details read from the left, as in the text report
    assert all(c["align"] in ("left", "start") for c in words), [c for c in words if c["align"] not in ("left",
                                                                                                      "start")]
    assert any(c["text"] == "FAIL" for c in words) and any(c["text"].startswith("gradients under a factor")
                                                          for c in words)
    # not a fixed-layout table centred in the output, with the theme's zebra stripes through the details
    assert found["layout"] == "auto" and found["tableLeft"] < 2
    assert found["tableWidth"] < found["outputWidth"]
    assert len({c["background"] for c in cells}) == 1


def test_a_screenshot_under_jupyterlabs_css(swapped: Report, tmp_path: Path) -> None:
    """The page as a student sees it; AUTOGRADER_SCREENSHOTS=DIR keeps the PNG there to look at."""
    page = tmp_path / "jupyterlab.html"
    page.write_text(jupyterlab_page(report_html(swapped), probe=False), encoding="utf-8")
    keep = os.environ.get("AUTOGRADER_SCREENSHOTS")
    shot = (Path(keep) if keep else tmp_path) / "check-under-jupyterlab.png"
    shot.parent.mkdir(parents=True, exist_ok=True)
    render(page, screenshot=shot, size=(1000, 1300))
    data = shot.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 10_000
