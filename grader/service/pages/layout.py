"""The frame of every page of the course server: the course's name at the top,
the pages' stylesheet, and the tables that turn into cards on a phone.
Server-rendered HTML under the CSP of every page the grader writes (no scripts).
"""

from __future__ import annotations

from collections.abc import Mapping

from starlette.responses import HTMLResponse

from grader.outputs.html_page import e, page
from grader.service.state import State

CSS = """
nav { margin: .4em 0 1em; } nav a { margin-right: 1em; }
.late { color: #c62828; } .waiting { color: #8d6e00; }
p.course { margin: 0; color: #3b6ea8; font-weight: 600; }
form.upload { display: flex; flex-wrap: wrap; gap: .5em 1em; align-items: end; }
form.upload label {
  display: flex; flex-direction: column; font-size: 12px; color: #444; max-width: 100%; }
input, select, button { font: inherit; max-width: 100%; }
@media (max-width: 640px) {
  table.cards thead { display: none; }
  table.cards, table.cards tbody, table.cards tr, table.cards td { display: block; width: 100%; }
  table.cards tr { border: 1px solid #ccc; border-radius: 4px; margin: 0 0 .6em; }
  table.cards td { border: none; border-bottom: 1px solid #eee; }
  table.cards td::before {
    content: attr(data-label); display: block; font-size: 11px; color: #666; }
}
section.live {
  border: 1px solid #3b6ea8; border-radius: 6px; padding: .2em .9em .5em; margin: .8em 0; }
"""


def course_page(state: State, title: str, body: str, css: str = "") -> str:
    """A page of this course: its name heads every page
    (and its title), errors and sign-in pages too."""
    name = state.course.name
    return page(f"{name}: {title}", f'<p class="course">{e(name)}</p>\n{body}', CSS + css)


def carried(fields: Mapping[str, object]) -> str:
    """The fields a form sends back as they are, unseen by its reader: each name and value
    escaped here, once, whichever page writes the form."""
    inputs = []
    for name, value in fields.items():
        inputs.append(f'<input type="hidden" name="{e(name)}" value="{e(str(value))}">')
    return "".join(inputs)


def cards(headers: list[str], rows: list[list[str]]) -> str:
    """A table that turns into one card per row on a phone, each cell labelled with its column
    (cells arrive escaped): a form in its last column stays in reach without scrolling sideways."""
    head = "".join(f'<th scope="col">{e(h)}</th>' for h in headers)
    body = "".join(
        "<tr>"
        + "".join(f'<td data-label="{e(h)}">{c}</td>' for h, c in zip(headers, row, strict=True))
        + "</tr>\n"
        for row in rows
    )
    return (
        f'<table class="cards">\n<thead><tr>{head}</tr></thead>\n<tbody>\n{body}</tbody>\n</table>'
    )


def not_found(state: State, what: str = "Not found") -> HTMLResponse:
    return HTMLResponse(course_page(state, "Not found", f"<h1>{e(what)}</h1>"), 404)
