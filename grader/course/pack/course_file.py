"""The pack's grade-course.toml: the course server `grade submit` sends to, to which the student
adds their token (grader.service.client reads it)."""

from __future__ import annotations

import urllib.parse
from pathlib import Path

from grader.core.text import toml_string

COURSE_FILE = "grade-course.toml"


def is_http_address(server: str) -> bool:
    """Whether `server` is an address grade submit can send to: http or https, nothing else."""
    return urllib.parse.urlsplit(server).scheme in ("http", "https")


def write_course_file(out: Path, server: str) -> Path:
    path = out / COURSE_FILE
    path.write_text(
        f"# grade submit sends your work here; add your own line: token = \"...\"\n"
        f"server = {toml_string(server)}\n",
        encoding="utf-8",
        newline="\n",
    )
    return path
