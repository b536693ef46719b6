"""The shell of the pages the grader writes (class summary,
student feedback): one file, no scripts, nothing fetched."""

from __future__ import annotations

import html
from collections.abc import Sequence

#: nothing may load from anywhere; styles are inline.
#: Should a text slip through unescaped, it cannot run.
CSP = "default-src 'none'; style-src 'unsafe-inline'"

BASE_CSS = """
*, *::before, *::after { box-sizing: border-box; }
body {
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d1d1f;
  margin: 1.2em auto;
       max-width: 72em; padding: 0 1em; overflow-wrap: break-word; }
h1 { font-size: 1.45em; margin: .2em 0 .3em; }
h2 { font-size: 1.15em; margin-top: 1.6em; border-bottom: 1px solid #ccc; }
h3 { font-size: 1em; margin: .8em 0 .2em; }
table { border-collapse: collapse; margin: .5em 0; }
th, td { border: 1px solid #ccc; padding: .2em .5em; vertical-align: top; text-align: left; }
th { background: #f3f3f3; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.scroll { overflow-x: auto; max-width: 100%; }
.nowrap { white-space: nowrap; }
.id { font-family: ui-monospace, monospace; font-size: 12px; }
code, pre { font-family: ui-monospace, monospace; font-size: 12px; }
pre { white-space: pre-wrap; margin: 0; }
.muted { color: #666; }
.pass { color: #2e7d32; }
.fail { color: #c62828; }
.error { color: #8e24aa; }
.skip { color: #8d6e00; }
@media print { body { margin: 0; font-size: 11px; max-width: none; } tr, li { break-inside: avoid; }
               h2, h3 { break-after: avoid; } .scroll { overflow: visible; }
               * { -webkit-print-color-adjust: exact; print-color-adjust: exact; } }
"""


def e(text: object) -> str:
    """Text made safe for HTML content and attribute values."""
    return html.escape(str(text), quote=True)


def page(title: str, body: str, css: str = "") -> str:
    """A whole page: UTF-8, the CSP, a phone-friendly viewport and the styles inline."""
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{e(title)}</title>\n<style>{BASE_CSS}{css}</style>\n</head>\n<body>"
        f"\n{body}\n</body>\n</html>\n"
    )


def table(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    numeric: frozenset[int] = frozenset(),
    css_class: str = "",
    row_classes: Sequence[str] = (),
) -> str:
    """A table in a box that scrolls sideways on a narrow
    screen; cells arrive escaped (some hold markup)."""
    head = "".join(f'<th scope="col">{e(h)}</th>' for h in headers)
    classes = list(row_classes) or [""] * len(rows)
    body = "".join(
        (f'<tr class="{e(css)}">' if css else "<tr>")
        + "".join(
            f'<td class="num">{c}</td>' if i in numeric else f"<td>{c}</td>"
            for i, c in enumerate(row)
        )
        + "</tr>\n"
        for row, css in zip(rows, classes, strict=True)
    )
    attribute = f' class="{css_class}"' if css_class else ""
    return (
        f'<div class="scroll"><table{attribute}>\n<thead><tr>{head}</tr></thead>\n'
        f"<tbody>\n{body}</tbody>\n</table></div>"
    )


def num(value: float | None) -> str:
    """Points as a person writes them: 10, 6.33, 0.5; n/a where there is no value."""
    return "n/a" if value is None else f"{value:.2f}".rstrip("0").rstrip(".")


def plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"
