"""One clock for the course server: what time an upload has, and how a moment is shown.

An upload's time is when the server had all of it: its request's body received whole, taken once in the
request's handler (`arrived`) and carried to the store with it. Not when its request began (a body begun
before the deadline and trickled in after it could be written after it), and not when the store wrote it
(in a burst, the writer takes uploads one transaction after another, hundreds of milliseconds after they
arrived). The opening, the close, the day's limit, days late and the receipt all read this one time.

Every moment a person reads, on a page, a receipt or `grade submit --status`, is in the course's zone
(course.toml's `timezone`), named by its abbreviation: "2026-12-01 23:59 CET".
"""

from __future__ import annotations

import time
from datetime import datetime

from grader.service.config import Course


def arrived() -> float:
    """Now, as an upload's time: call it once its body is whole, before anything waits on the store."""
    return time.time()


def shown(moment: float | None, course: Course) -> str:
    """A moment to the minute in the course's zone ("2026-12-01 23:59 CET"), or "none"."""
    if moment is None:
        return "none"
    return datetime.fromtimestamp(moment, course.timezone).strftime("%Y-%m-%d %H:%M %Z")


def shown_exactly(moment: float, course: Course) -> str:
    """A moment to the millisecond in the course's zone, for a receipt ("2026-12-01 23:59:59.700 CET")."""
    local = datetime.fromtimestamp(moment, course.timezone)
    return f"{local.strftime('%Y-%m-%d %H:%M:%S')}.{local.microsecond // 1000:03d} {local.strftime('%Z')}"


def iso(moment: float, course: Course) -> str:
    """A moment as ISO 8601 with the course's offset, to the millisecond (the receipt's `server_time`)."""
    return datetime.fromtimestamp(moment, course.timezone).isoformat(timespec="milliseconds")


def shown_zone(course: Course) -> str:
    """The course's zone as its abbreviation now ("CET"), which every shown moment carries."""
    return datetime.now(course.timezone).strftime("%Z")
