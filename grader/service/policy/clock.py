"""One clock for the course server: what time an upload has, and how a moment is shown.

An upload's time is when the server had all of it: its request's last byte read by the
server process (grader.service.slow_clients stamps it then, before the request waits on
anything), read once in the request's handler (`arrived`) and carried to the store with
it. Not when its request began (a body begun before the deadline and trickled in after it
could be written after it), and not when the store wrote it (in a burst, the writer takes
uploads one transaction after another, hundreds of milliseconds after they arrived). The
opening, the close, the day's limit, days late and the receipt all read this one time.

Every moment a person reads, on a page, a receipt or `grade submit --status`, is in the
course's zone (course.toml's `timezone`), named by its abbreviation: "2026-12-01 23:59 CET".
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from grader.service.config import Course

#: where the server keeps the moment a request arrived whole, in its ASGI scope's state
#: (grader.service.slow_clients stamps it as it reads the request's last byte)
ARRIVED = "grader_arrived"


def arrived(scope: Mapping[str, Any] | None = None) -> float:
    """An upload's time: when the server read its request's last byte, as the
    protocol stamped it in `scope`; where none did (another server, a test's
    client), now: call it once the body is whole, before anything waits."""
    stamped = (scope or {}).get("state", {}).get(ARRIVED)
    return float(stamped) if isinstance(stamped, float) else time.time()


def shown(moment: float | None, course: Course) -> str:
    """A moment to the minute in the course's zone ("2026-12-01 23:59 CET"), or "none"."""
    if moment is None:
        return "none"
    return datetime.fromtimestamp(moment, course.timezone).strftime("%Y-%m-%d %H:%M %Z")


def logged(moment: float | None, course: Course) -> str:
    """A moment as the audit log keeps it: in the course's zone, to the second, or "none"."""
    if moment is None:
        return "none"
    local = datetime.fromtimestamp(moment, course.timezone)
    return local.strftime("%Y-%m-%d %H:%M:%S %Z")


def shown_exactly(moment: float, course: Course) -> str:
    """A moment to the millisecond in the course's zone,
    for a receipt ("2026-12-01 23:59:59.700 CET")."""
    local = datetime.fromtimestamp(moment, course.timezone)
    return (
        f"{local.strftime('%Y-%m-%d %H:%M:%S')}.{local.microsecond // 1000:03d} "
        f"{local.strftime('%Z')}"
    )


def iso(moment: float, course: Course) -> str:
    """A moment as ISO 8601 with the course's offset,
    to the millisecond (the receipt's `server_time`)."""
    return datetime.fromtimestamp(moment, course.timezone).isoformat(timespec="milliseconds")


def shown_zone(course: Course) -> str:
    """The course's zone as its abbreviation now ("CET"), which every shown moment carries."""
    return datetime.now(course.timezone).strftime("%Z")
