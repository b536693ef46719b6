"""A page's form, read bounded: urlencoded fields (the instructor's forms, an LMS's
login and launch) and a multipart upload (the student's page). A request is hostile
input: its body is read up to a cap and no further, and a multipart body yields at
most a few fields and one file, parsed by Starlette's own parser (python-multipart).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from dataclasses import dataclass
from urllib.parse import parse_qsl

from starlette.datastructures import UploadFile
from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.requests import ClientDisconnect, Request

#: an instructor's form is a few fields of a few hundred bytes
FIELDS_CAP = 16 * 1024
#: room for the multipart framing, the file's name
#: and the form's other fields beside the file itself
FRAMING = 16 * 1024


class TooBig(Exception):
    """The body was longer than its cap."""


async def _capped(request: Request, cap: int) -> AsyncGenerator[bytes, None]:
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > cap:
        raise TooBig
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > cap:
            raise TooBig
        yield chunk


async def raw(request: Request, cap: int) -> bytes | None:
    """The body, bytes as sent; None when it is over `cap`, or did not arrive whole (the
    client left, or was too slow: grader.service.slow_clients), where nobody reads the answer."""
    chunks = []
    try:
        async for chunk in _capped(request, cap):
            chunks.append(chunk)
    except (TooBig, ClientDisconnect):
        return None
    return b"".join(chunks)


async def fields(request: Request, cap: int = FIELDS_CAP) -> dict[str, str] | None:
    """A urlencoded body's fields (the last of a
    repeated name); None when the body is over `cap`."""
    body = await raw(request, cap)
    return (
        None
        if body is None
        else dict(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True))
    )


@dataclass(frozen=True, slots=True)
class Multipart:
    """A multipart form's file and its other fields."""

    filename: str
    content: bytes
    fields: dict[str, str]


async def multipart(request: Request, cap: int, name: str = "file") -> Multipart | str:
    """The form's file `name` (at most `cap` bytes) and its
    fields; or why not, in words ("too big" when over)."""
    if not request.headers.get("content-type", "").startswith("multipart/form-data"):
        return "the form must be sent as multipart/form-data"
    parser = MultiPartParser(
        request.headers,
        _capped(request, cap + FRAMING),
        max_files=1,
        max_fields=8,
        max_part_size=FIELDS_CAP,
    )
    try:
        form = await parser.parse()
    except TooBig:
        return "too big"
    except (
        ClientDisconnect
    ):  # gone, or too slow (grader.service.slow_clients): nobody reads this answer
        return "the upload did not arrive whole"
    except MultiPartException as exc:
        return f"the form could not be read ({exc.message})"
    try:
        found = form.get(name)
        if not isinstance(found, UploadFile):
            return "choose a file first"
        content = await found.read(cap + 1)
        others = {k: v for k, v in form.multi_items() if isinstance(v, str)}
        return Multipart(filename=found.filename or "submission.py", content=content, fields=others)
    finally:
        await form.close()
