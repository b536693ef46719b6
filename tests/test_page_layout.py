"""The frame every page of the course server shares (grader.service.pages.layout): what a form
carries back is escaped once there, whatever a page puts in it."""

from __future__ import annotations

from html.parser import HTMLParser

from grader.service.pages.layout import carried


class _Inputs(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        assert tag == "input", tag
        self.found.append(dict(attrs))


def test_carried_fields_come_back_as_written_however_hostile_their_names_and_values() -> None:
    fields = {"student": 'x"><script>alert(1)</script>', 'na"me': "<b>&amp;", "key": 7}
    parser = _Inputs()
    parser.feed(carried(fields))
    assert "<script>" not in carried(fields)
    assert [(i["name"], i["value"], i["type"]) for i in parser.found] == [
        (name, str(value), "hidden") for name, value in fields.items()
    ]


def test_nothing_carried_is_nothing_written() -> None:
    assert carried({}) == ""
