"""`grade submit`: what a student runs. `where` decides where a token and its work may
go (the pack's course file in the student's own folders, or an address named outright,
and the server each token is bound to); `calls` makes the requests (an upload and its
receipt, the report waited for, the student's status and history, a login link).
"""

from __future__ import annotations

from grader.service.client.calls import (
    RETRIES,
    ServerRefused,
    call,
    listing,
    pack_header,
    receipt_text,
    report_text,
    stale_text,
    upload,
    wait_for,
)
from grader.service.client.where import Settings, bind, settings

__all__ = [
    "RETRIES",
    "ServerRefused",
    "Settings",
    "bind",
    "call",
    "listing",
    "pack_header",
    "receipt_text",
    "report_text",
    "settings",
    "stale_text",
    "upload",
    "wait_for",
]
