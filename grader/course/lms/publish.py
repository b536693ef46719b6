"""Send a batch's scores to its assignment's own LMS column over LTI 1.3 Assignment and Grade
Services (AGS).

The token is the platform's client-credentials grant (grader.course.lms.platform), for AGS's score
scope (and its line item scope, where the column is looked up). Each student's score (their
lti-score.json) is POSTed to `{line item}/scores` as application/vnd.ims.lis.v1.score+json. Busy
platforms are retried (429 and 5xx, with Retry-After; a Score with the same timestamp is safe to
send again), an expired token is fetched again once.

Where the scores go is one rule: each assignment has a line item of its own, and one line item holds
one assignment. It is the one named for it (course.toml's [lti.lineitems], `--lineitem`, a launch of
its link), else the one the platform's line items service holds for it (grader.course.lms.lineitems:
found by resourceId, or made). Nothing names one: nothing is sent. What was sent is recorded per
line item (REPORTS/published/lti.json, or the course server's own record), with the assignment each
line item holds: a second publish sends only the scores that changed since, and a line item that
holds another assignment's scores is refused.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from grader.core.errors import GraderError
from grader.course.lms.lineitems import LINEITEM_SCOPE, Column, find_or_make
from grader.course.lms.platform import Platform, ServiceClient
from grader.outputs.formats.lti import SCORE_MEDIA_TYPE
from grader.outputs.layout import folder_of

SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
RECORD = Path("published") / "lti.json"


@dataclass(frozen=True, slots=True, kw_only=True)
class Target:
    """Where one assignment's scores go: the assignment (its column's resourceId) and its label,
    its line item where one is named for it, and the record of what was sent."""

    assignment: str
    label: str = ""
    #: the line item named for it, and by what (course.toml, --lineitem, a launch); "": the
    #: platform's line items service is asked
    lineitem: str = ""
    source: str = ""
    #: what was sent, per line item; None: REPORTS/published/lti.json
    record: Path | None = None


@dataclass(frozen=True, slots=True)
class Published:
    sent: list[str]
    unchanged: int
    skipped: list[str]
    #: the line item they went to, and how it was had (course.toml, found, made, ...)
    lineitem: str = ""
    how: str = ""
    #: students not sent because the caller holds them back (their deadline has not passed)
    held: list[str] = field(default_factory=list)


def publish_lti(
    reports: Path,
    platform: Platform,
    target: Target,
    *,
    held: Collection[str] = (),
    dry_run: bool = False,
    say: Callable[[str], None] = print,
) -> Published:
    """POST every student's changed score to the assignment's line item; record each one the
    platform took. `held`: ids of students whose scores are not sent now."""
    scores, skipped, kept = _scores(reports, held, say)
    maximum = max((float(s.get("scoreMaximum", 0) or 0) for s, _ in scores), default=1.0)
    client = ServiceClient(
        platform, SCORE_SCOPE if target.lineitem else f"{SCORE_SCOPE} {LINEITEM_SCOPE}"
    )
    lineitem, how = _lineitem(client, platform, target, maximum, dry_run)
    record_path = target.record or reports / RECORD
    record = _read_record(record_path, lineitem, target.assignment) if lineitem else {}
    todo = [
        (score, digest)
        for score, digest in scores
        if record.get(score["userId"], {}).get("sha256") != digest
    ]
    unchanged = len(scores) - len(todo)
    if dry_run or not todo:
        for score, _ in todo:
            say(
                f"would send {score['userId']}: "
                f"{score.get('scoreGiven', '-')}/{score.get('scoreMaximum', '-')}"
            )
        return Published(
            [s["userId"] for s, _ in todo] if dry_run else [],
            unchanged,
            skipped,
            lineitem,
            how,
            kept,
        )

    def recorded(user: str, entry: dict[str, Any]) -> None:
        record[user] = entry
        # after each: a stopped run resends only the rest
        _write_record(record_path, lineitem, target.assignment, record)

    sent = _post_scores(client, lineitem, todo, recorded)
    return Published(sent, unchanged, skipped, lineitem, how, kept)


def _post_scores(
    client: ServiceClient,
    lineitem: str,
    todo: list[tuple[dict[str, Any], str]],
    recorded: Callable[[str, dict[str, Any]], None],
) -> list[str]:
    """POST each score; `recorded` hears of each one the platform took. The students sent, or a
    GraderError naming the refusals."""
    sent, refused = [], []
    for score, digest in todo:
        status, body = client.post(
            scores_url(lineitem), json.dumps(score).encode(), SCORE_MEDIA_TYPE
        )
        if status in (200, 201, 202, 204):
            entry = {"sha256": digest, "timestamp": score["timestamp"], "status": status}
            recorded(score["userId"], entry)
            sent.append(score["userId"])
        else:
            why = body[:120].strip() or "no reason given"
            refused.append(f"{score['userId']} ({status}: {why})")
    if refused:
        more = "; ..." if len(refused) > 3 else ""
        raise GraderError(
            f"{lineitem}: the platform refused {len(refused)} of {len(todo)} scores "
            f"({'; '.join(refused[:3])}{more}); {len(sent)} were "
            f"sent and recorded. Fix the cause and publish again: only what was not taken is sent."
        )
    return sent


def _scores(
    reports: Path, held: Collection[str], say: Callable[[str], None]
) -> tuple[list[tuple[dict[str, Any], str]], list[str], list[str]]:
    """Each sendable student's Score and its digest; the students skipped (grader errors), and
    those held."""
    from grader.course.classfiles import finished_students
    from grader.course.manifest import read_manifest
    from grader.outputs.layout import MANIFEST

    folders = read_manifest(reports).folders if (reports / MANIFEST).is_file() else None
    # the batch's own students, never another run's left behind
    rows = list(finished_students(reports, folders))
    # Where the roster gives LTI user ids, a student without one is not sent under the gradebook's
    # id instead.
    with_lti = any(row.student.lti_user_id for row in rows)
    scores: list[tuple[dict[str, Any], str]] = []
    skipped: list[str] = []
    kept: list[str] = []
    no_lti: list[str] = []
    for row in rows:
        # a Score without scoreGiven clears the grade: never for our bug
        if row.outcome == "grader-error":
            skipped.append(row.student.id)
        elif row.student.id in held:
            kept.append(row.student.id)
        elif with_lti and not row.student.lti_user_id:
            no_lti.append(row.student.id)
        else:
            path = folder_of(reports, row.student) / "lti-score.json"
            score = json.loads(path.read_text(encoding="utf-8"))
            scores.append((score, _digest(score)))
    if no_lti:
        say(
            f"not sent: {len(no_lti)} students have no lti_user_id in the roster "
            f"({', '.join(no_lti[:5])}{' ...' if len(no_lti) > 5 else ''}); add them and grade "
            "again with --resume"
        )
    return scores, skipped, kept


def _lineitem(
    client: ServiceClient, platform: Platform, target: Target, maximum: float, dry_run: bool
) -> tuple[str, str]:
    """The assignment's line item and how it was had: the one named for it, else found or made in
    the platform's line items service. None: nothing is sent, and the error says where one comes
    from."""
    if target.lineitem:
        return target.lineitem, target.source
    if not platform.lineitems:
        raise GraderError(
            f"which LMS column is {target.assignment}'s? Nothing names one, and the grader does "
            f'not guess: give the platform\'s line items service (lineitems = "..." in the '
            f"registration file), or name the column (course.toml's [lti.lineitems], or grade "
            f"publish lti --lineitem). Nothing was sent."
        )
    column = Column(target.assignment, target.label or target.assignment, maximum)
    found = find_or_make(client, platform.lineitems, column, make=not dry_run)
    if not found.url:
        return "", f"none yet: publishing makes one in {platform.lineitems}"
    return found.url, found.how


def scores_url(lineitem: str) -> str:
    """AGS: the line item's URL with /scores appended to its path, its query kept."""
    parts = urlsplit(lineitem)
    return urlunsplit(parts._replace(path=parts.path.rstrip("/") + "/scores"))


def _digest(score: dict[str, Any]) -> str:
    """What a score says, without when: the same grade graded again is not a change to send."""
    return hashlib.sha256(
        json.dumps({k: v for k, v in score.items() if k != "timestamp"}, sort_keys=True).encode()
    ).hexdigest()


def _read_record(path: Path, lineitem: str, assignment: str) -> dict[str, dict[str, Any]]:
    """What was sent to `lineitem`; refused if the record says it holds another assignment's
    scores."""
    data = _record(path)
    holds = data.get("assignments", {}).get(lineitem)
    if holds is not None and holds != assignment:
        raise GraderError(
            f"{lineitem} holds {holds}'s scores (sent from here, {path}), and one LMS column holds "
            f"one assignment: {assignment}'s scores were not sent. Give {assignment} a column of "
            "its own (docs/class.md, Sending the scores to the LMS)."
        )
    lineitems: dict[str, dict[str, dict[str, Any]]] = data.get("lineitems", {})
    return dict(lineitems.get(lineitem, {}))


def _record(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {"version": 1, "lineitems": {}, "assignments": {}}
    except (OSError, ValueError) as exc:
        raise GraderError(
            f"{path}: the record of what was published is damaged ({exc}); remove it to send every "
            f"score again."
        ) from None
    if not isinstance(data, dict) or not isinstance(data.get("lineitems"), dict):
        raise GraderError(
            f"{path}: the record of what was published is damaged; remove it to send every score "
            f"again."
        )
    data.setdefault("assignments", {})
    return data


def _write_record(
    path: Path, lineitem: str, assignment: str, sent: dict[str, dict[str, Any]]
) -> None:
    from grader.course.disk import atomic

    data = _record(path)
    data["lineitems"][lineitem] = dict(sorted(sent.items()))
    data["assignments"][lineitem] = assignment
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic(path, json.dumps(data, indent=2) + "\n", durable=True)
