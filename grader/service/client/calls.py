"""`grade submit`'s requests: upload a file and print its receipt once the
server has stored it, wait for and print the report of the public checks;
ask the server what it holds (`--status`, `--history`, `--login`).

Only the standard library speaks HTTP here (urllib), so a student needs nothing
beyond the base install. Where the requests go, and with which token, is
grader.service.client.where's. An upload is retried on a dropped connection or a busy
server with the same idempotency key, so it is stored once however often it is sent.
"""

from __future__ import annotations

import http.client
import json
import math
import os
import re
import ssl
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from grader.core.errors import GraderError
from grader.core.library import ARCHIVES, Library
from grader.service.client.where import Settings

#: an exercise id, as the server may name one back (anything else it says of a pack is not printed)
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")
#: tries after the first, while the server is unreachable or busy ($AUTOGRADER_SUBMIT_RETRIES)
RETRIES = int(os.environ.get("AUTOGRADER_SUBMIT_RETRIES") or 5)


class ServerRefused(GraderError):
    """The server answered, and said no (the message is its own)."""


def call(
    where: Settings,
    method: str,
    path: str,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
    timeout: float = 90.0,
    retries: int = RETRIES,
) -> tuple[int, Any]:
    """One request, retried while the connection fails or
    the server is busy (429 with Retry-After, 502-504)."""
    sent = {
        "Authorization": f"Bearer {where.token}",
        "Accept": "application/json",
        **(headers or {}),
    }
    url = where.server + path
    request = urllib.request.Request(url, data=body, method=method, headers=sent)
    delay = 0.5
    context = where.tls()
    for attempt in range(retries + 1):
        tries = f"{attempt + 1} of {retries}"
        try:
            with urllib.request.urlopen(request, timeout=timeout, context=context) as response:
                status, raw = response.status, response.read()
            return status, _answer(where, raw)
        except urllib.error.HTTPError as exc:
            delay = _busy(exc, delay, tries, last=attempt == retries)
        # a reply cut short (IncompleteRead) is tried again like a refused connection: an
        # upload carries its idempotency key, so one that was stored is not stored twice
        except (
            urllib.error.URLError,
            http.client.HTTPException,
            ConnectionError,
            TimeoutError,
        ) as exc:
            _unreachable(where, exc, delay, tries, last=attempt == retries)
        time.sleep(delay)
        delay = min(delay * 2, 30.0)
    raise AssertionError("unreachable")


def _busy(exc: urllib.error.HTTPError, delay: float, tries: str, *, last: bool) -> float:
    """How long to wait before the next try, where the server said it is busy (429 with
    Retry-After, but for the day's limit; 502-504); raises ServerRefused where it said no, or
    on the `last` try."""
    data = _json(exc.read())
    said = str(data.get("error", ""))
    limited = exc.code == 429 and "Retry-After" in exc.headers and "daily limit" not in said
    if last or not (exc.code in (502, 503, 504) or limited):
        message = str(data.get("error") or f"the server answered {exc.code} {exc.reason}")
        raise ServerRefused(message) from None
    delay = max(delay, _seconds(exc.headers.get("Retry-After")))
    why = str(data.get("error") or f"the server is busy ({exc.code})")
    _waiting(f"{why[:200]}: waiting {delay:.0f} s, then trying again ({tries})")
    return delay


def _unreachable(where: Settings, exc: Exception, delay: float, tries: str, *, last: bool) -> None:
    """Say that the next try waits `delay`; raises GraderError where trying again cannot help
    (a certificate not trusted here), or on the `last` try."""
    reason = getattr(exc, "reason", exc)
    if isinstance(reason, ssl.SSLCertVerificationError):
        # trying again would not make it trusted
        raise GraderError(
            f"the course server at {where.server} could not be verified: its certificate is not "
            f"trusted here ({reason.verify_message}). Nothing was sent. If your course uses its "
            "own certificate authority, pass --ca-file FILE (or set $AUTOGRADER_CA_FILE) to the "
            "file it gave you; else tell your instructor."
        ) from None
    if last:
        raise GraderError(
            f"cannot reach the course server at {where.server} ({reason}). Check your network, "
            "or try again later: nothing was lost."
        ) from None
    why = str(reason)[:120]
    _waiting(f"cannot reach the course server ({why}): trying again in {delay:.0f} s ({tries})")


def _seconds(retry_after: str | None) -> float:
    """Retry-After's delay in seconds, at most 300 (an HTTP date, or nothing readable, is no delay
    of its own)."""
    try:
        seconds = float(retry_after or 0)
    except ValueError:
        return 0.0
    return min(max(seconds, 0.0), 300.0) if math.isfinite(seconds) else 0.0


def _waiting(line: str) -> None:
    """Say that the client waits, and how long, before it does: a silent wait looks like a hang."""
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def _answer(where: Settings, raw: bytes) -> Any:
    """A success's body, which must be the API's JSON: a
    proxy's or a captive portal's page is not an answer."""
    try:
        return json.loads(raw or b"{}")
    except ValueError:
        raise GraderError(
            f"the course server at {where.server} answered with something that is not its API "
            f"({raw[:60]!r}). Check the address (grade-course.toml or $AUTOGRADER_SERVER) and your "
            f"network; grade submit --status shows what the server holds."
        ) from None


def _json(data: bytes) -> dict[str, Any]:
    try:
        found = json.loads(data)
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


def upload(
    where: Settings,
    path: Path,
    exercise: str | None,
    assignment: str | None,
    key: str | None = None,
    library: Library | None = None,
) -> dict[str, Any]:
    """Send the file, or for a library course the course's files of the repository at `path`
    as one zip; the receipt (submission id, sha256, server time), given once it is stored."""
    name = path.name
    if library is not None:
        from grader.run.read.package import package_zip

        content = package_zip(
            path, library
        )  # the course's files only: the student's tests and data stay home
        stem = next((name[: -len(a)] for a in ARCHIVES if name.lower().endswith(a)), name)
        name = f"{stem or 'repository'}.zip"
    else:
        try:
            content = path.read_bytes()
        except OSError as exc:
            raise GraderError(f"{path}: cannot read it ({exc.strerror}).") from None
        if exercise is None and assignment is None:
            exercise, assignment = _declared(path)
    query = urllib.parse.urlencode(
        {k: v for k, v in (("exercise", exercise), ("assignment", assignment)) if v}
    )
    _, receipt = call(
        where,
        "POST",
        "/api/submissions" + (f"?{query}" if query else ""),
        content,
        {
            "Content-Type": "application/octet-stream",
            "Idempotency-Key": key or str(uuid.uuid4()),
            "X-Filename": urllib.parse.quote(name),
            **pack_header(path.parent, Path.cwd()),
        },
    )
    return dict(receipt)


def pack_header(*folders: Path) -> dict[str, str]:
    """The header saying which version of each exercise the student's pack holds (the pack in or
    above one of
    `folders`), so that the server can say whether it is stale; none without a pack."""
    from grader.course.pack.fingerprint import HEADER, header_value, pack_near

    held = pack_near(*folders)
    return {HEADER: header_value(held)} if held else {}


def stale_text(answer: dict[str, Any]) -> str:
    """What the server said of the student's pack: the exercises that changed since its release."""
    named = answer.get("stale_pack") or []
    old = [name for name in named if isinstance(name, str) and _ID.fullmatch(name)][:20]
    if not old:
        return ""
    return (
        f"Your pack is out of date for {', '.join(old)}: the course changed "
        f"{'it' if len(old) == 1 else 'them'} after your pack was released, so your own "
        "`grade` checks against old checks (the server grades with the new ones). Get the new "
        "pack from your course and copy your work into it.\n"
    )


def _declared(path: Path) -> tuple[str | None, str | None]:
    """The exercise or assignment the file names (its '#
    exercise:' line, or the notebook's metadata), if any."""
    from grader.run.read.load import load_submission

    try:
        submission = load_submission(path)
    except GraderError:
        return None, None  # the server says what is wrong with the file, in its own words
    return submission.declared_exercise, submission.declared_assignment


def wait_for(where: Settings, submission: int, timeout: float) -> dict[str, Any]:
    """The submission once graded (or as it stands when `timeout` runs out)."""
    ends = time.monotonic() + timeout
    while True:
        left = max(ends - time.monotonic(), 0.0)
        _, found = call(where, "GET", f"/api/submissions/{submission}?wait={min(left, 55.0):.0f}")
        if found.get("state") == "done" or time.monotonic() >= ends:
            return dict(found)


def receipt_text(receipt: dict[str, Any]) -> str:
    late = f", {receipt['days_late']:g} day(s) late" if receipt.get("late") else ""
    left = "" if receipt.get("left_today") is None else f"; {receipt['left_today']} more today"
    again = (
        " (already stored: this is the first upload's receipt)" if receipt.get("replayed") else ""
    )
    policy = f"  late: {receipt['late_policy']}\n" if receipt.get("late_policy") else ""
    effect = f"  counts: {receipt['effect']}\n" if receipt.get("effect") else ""
    # the server's one clock, in the course's zone
    # ("received"); a server before it sent the ISO time alone
    when = (
        f"received {receipt['received']}"
        if receipt.get("received")
        else f"server time {receipt['server_time']}"
    )
    return (
        f"Received: submission {receipt['submission']} for {receipt['assignment']}{late}{again}\n"
        f"  sha256 {receipt['sha256']}\n  {when}{left}\n{policy}{effect}"
    )


def report_text(found: dict[str, Any], color: bool) -> tuple[str, int]:
    """The report as the terminal shows it, and the exit code (0 all passed, 1 points lost)."""
    from grader.outputs.render_json import report_from_dict
    from grader.outputs.render_text import render_text

    if found.get("state") != "done" or "report" not in found:
        ahead = found.get("queue_ahead")
        queue = f", {ahead} ahead in the queue" if ahead else ""
        return (
            f"Not graded yet ({found.get('state')}{queue}). "
            "Run grade submit --status later: your submission is stored.\n",
            0,
        )
    report = report_from_dict(found["report"])
    counts = (
        ""
        if "counts" not in found
        else f"Counts for {found['assignment']}: "
        f"{'this submission' if found['counts'] else 'another of yours'} "
        f"({found.get('late_policy', '')}).\n"
    )
    return render_text(report, color=color) + counts, int(report.exit_code)


def listing(found: dict[str, Any], status: bool) -> str:
    """`--status` (`status`) or `--history` as the terminal
    shows them, every moment in the course's zone."""

    def when(moment: float | None, shown: str | None) -> str:
        """The server's words for a moment, in the course's
        zone; a server before them sent epoch seconds."""
        if shown:
            return shown
        return (
            "-"
            if moment is None
            else datetime.fromtimestamp(float(moment), UTC).strftime("%Y-%m-%d %H:%M UTC")
        )

    lines = []
    if status:
        for a in found["assignments"]:
            counted = a["counted"]
            score = (
                "excused"
                if counted.get("excused")
                else "-"
                if counted["score"] is None
                else f"{counted['score']:g}/{counted['max_score']:g}"
            )
            left = "no limit" if a["left_today"] is None else f"{a['left_today']} left today"
            closes = (
                f", closes {when(a['closes'], a.get('closes_shown'))}"
                if a.get("closes") is not None
                else ""
            )
            lines.append(
                f"{a['id']}: deadline {when(a['deadline'], a.get('deadline_shown'))}{closes}, "
                f"{left}, counts {score} ({counted['why']}); {a.get('late_rule', '')}"
            )
        if found.get("late_days_left") is not None:
            lines.append(f"late days left: {found['late_days_left']}")
    else:
        for s in found["submissions"]:
            score = s["outcome"] or s["state"]
            if (
                s["outcome"] == "graded" and "score" in s
            ):  # after the deadline: what it counts, late policy applied
                score = (
                    f"{s['score']:g}/{s['max_score']:g}{', counts' if s['counts'] else ''} "
                    f"({s['late_policy']})"
                )
            elif s["outcome"] == "graded":
                score = (
                    f"{s['public_score']:g} on the public checks (the hidden checks after the "
                    "deadline)"
                )
            late = f", {s['days_late']:g} d late" if s["days_late"] else ""
            lines.append(
                f"#{s['submission']} {s['assignment']} "
                f"{when(s['received_at'], s.get('received_shown'))} {s['filename']}{late}: {score}"
            )
        lines = lines or ["no submissions yet"]
    return "\n".join(lines)
