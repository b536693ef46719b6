"""Where `grade submit` sends a student's token and work: only where its owner meant it to go.

The server comes from `--server`, else $AUTOGRADER_SERVER, else the pack the course handed
out: its grade-course.toml (`server = "..."`, and `token = "..."` where the student keeps
it there), in the folder the command runs in or one above it, looked for only through
folders the student owns and nobody else may write. The token comes from $AUTOGRADER_TOKEN,
else that file. `grade submit` says which server it sends to, and where that came from.

Why: the first grade-course.toml in any parent folder used to name the server, even for a
token from the environment. A file planted above a classmate's working folder (a shared lab
machine, /tmp, a shared project folder) received their token and their work, and they were
shown a receipt. A folder another user owns, or may write (/tmp is anyone's), ends the search;
a course file another user owns, or may write, or that is a link, is refused and named.

A token stays bound to the first server it was sent to (its SHA-256 and that server's
origin, kept in $XDG_CONFIG_HOME/autograd-grader/servers.json, or ~/.config/...):
sending it to another is refused unless the student says so (`--new-server`), so that
a course file or variable pointed elsewhere later cannot take it.
"""

from __future__ import annotations

import hashlib
import json
import os
import ssl
import stat
import tomllib
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

from grader.core.errors import GraderError
from grader.course.pack.course_file import COURSE_FILE, is_http_address

#: the folder of the student's own settings, under $XDG_CONFIG_HOME (else ~/.config)
CONFIG_FOLDER = "autograd-grader"
BINDINGS = "servers.json"


@dataclass(frozen=True, slots=True)
class Settings:
    server: str
    token: str
    #: the certificates an https server's must chain to:
    #: None, the system's store (and $SSL_CERT_FILE)
    ca_file: Path | None = None
    #: where the server's address came from, in words (for the line that says where the work goes)
    source: str = ""

    def tls(self) -> ssl.SSLContext | None:
        """What an https server is verified against:
        its name and chain, always (never turned off)."""
        if not self.server.startswith("https://"):
            return None
        try:
            return ssl.create_default_context(cafile=self.ca_file)
        except (OSError, ssl.SSLError) as exc:
            raise GraderError(
                f"--ca-file {self.ca_file}: cannot read certificates from it ({exc}); it is a PEM "
                f"file of the certificate authority your course named."
            ) from None


def settings(
    start: Path | None = None, ca_file: Path | None = None, server: str | None = None
) -> Settings:
    """The server (`server`, else $AUTOGRADER_SERVER, else the pack's course
    file) and the token ($AUTOGRADER_TOKEN, else that file); and what verifies
    an https server (`ca_file`, else $AUTOGRADER_CA_FILE, else the system's)."""
    named = server or os.environ.get("AUTOGRADER_SERVER", "")
    source = "--server" if server else "$AUTOGRADER_SERVER"
    token = os.environ.get("AUTOGRADER_TOKEN", "")
    ca = ca_file or (
        Path(os.environ["AUTOGRADER_CA_FILE"]) if os.environ.get("AUTOGRADER_CA_FILE") else None
    )
    if not named or not token:
        found = pack_file(start or Path.cwd())
        if found is not None:
            data = _read(found)
            if not named:
                named, source = str(data.get("server", "")), str(found)
            token = token or str(data.get("token", ""))
    if not named:
        raise GraderError(
            "no course server: set $AUTOGRADER_SERVER (or --server URL), or run inside the pack "
            f"your course handed out (its {COURSE_FILE} names the server)."
        )
    if not is_http_address(named):
        raise GraderError(f"the course server {named!r} is not an http(s) address.")
    if not token:
        raise GraderError(
            "no token: set $AUTOGRADER_TOKEN to the token your instructor gave you, or add a line "
            f"token = \"...\" to {COURSE_FILE}."
        )
    return Settings(named.strip().rstrip("/"), token.strip(), ca, source)


def pack_file(start: Path) -> Path | None:
    """The nearest grade-course.toml at or above `start`, through folders the student owns and
    nobody else may write; a course file that is not the student's own is refused, with why."""
    folder = start.resolve()
    for candidate in (folder, *folder.parents):
        if not _own(candidate):
            # another user's folder, or one others may
            # write: nothing there or above is the student's
            return None
        path = candidate / COURSE_FILE
        try:
            info = path.lstat()
        except OSError:
            continue
        if stat.S_ISLNK(info.st_mode) or not stat.S_ISREG(info.st_mode) or not _own(path, info):
            raise GraderError(
                f"{path} is not yours alone (a link, another user's file, or one others may "
                "write): it is not read, and nothing was sent. If it is your course's, make it "
                "yours (chmod go-w); else remove it, or name the server with --server or "
                "$AUTOGRADER_SERVER."
            )
        return path
    return None


def _own(path: Path, info: os.stat_result | None = None) -> bool:
    """Whether `path` belongs to this user and nobody else may write it (a group's write is
    nobody else's where the group is the user's own private group, as a umask of 002 leaves it)."""
    try:
        info = info or path.stat()
    except OSError:
        return False
    if info.st_uid != os.getuid() or info.st_mode & stat.S_IWOTH:
        return False
    return not info.st_mode & stat.S_IWGRP or _private_group(info.st_gid)


def _private_group(gid: int) -> bool:
    import grp
    import pwd

    try:
        me, group = pwd.getpwuid(os.getuid()), grp.getgrgid(gid)
    except KeyError:
        return False
    return gid == me.pw_gid and group.gr_name == me.pw_name and set(group.gr_mem) <= {me.pw_name}


def _read(path: Path) -> dict[str, object]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise GraderError(f"{path}: cannot be read ({exc}).") from None


def origin(server: str) -> str:
    parts = urllib.parse.urlsplit(server)
    return f"{parts.scheme}://{parts.netloc.lower()}"


def bindings_file() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME", "").strip() or str(Path.home() / ".config")
    return Path(base) / CONFIG_FOLDER / BINDINGS


def bind(where: Settings, *, new_server: bool = False) -> str | None:
    """Check that `where`'s token goes to the server it was first sent
    to, and record it on its first use; what to tell the student about
    it, if anything. Another server is refused unless `new_server`."""
    path = bindings_file()
    key = hashlib.sha256(where.token.encode()).hexdigest()
    bound = _bindings(path)
    first = bound.get(key)
    here = origin(where.server)
    if first == here:
        return None
    if first is not None and not new_server:
        raise GraderError(
            f"your token was first sent to {first}, and this would send it to {here} (named by "
            f"{where.source}). Nothing was sent. If your course moved to {here}, run again with "
            f"--new-server; if you did not expect this address, do not: check {where.source}."
        )
    bound[key] = here
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        descriptor = os.open(
            path.with_suffix(".part"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600
        )
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            json.dump(bound, handle, indent=1, sort_keys=True)
        path.with_suffix(".part").replace(path)
    except OSError as exc:
        return f"(could not record which server your token goes to in {path}: {exc.strerror})"
    return (
        None if first is None else f"(your token now goes to {here}, as you asked, not to {first})"
    )


def _bindings(path: Path) -> dict[str, str]:
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise GraderError(
            f"{path}: cannot read which server each of your tokens goes to ({exc}); nothing was "
            "sent. Remove the file to start again."
        ) from None
    if not isinstance(found, dict) or not all(isinstance(v, str) for v in found.values()):
        raise GraderError(
            f"{path} is not what grade submit writes; nothing was sent. Remove it to start again."
        )
    return {str(k): v for k, v in found.items()}
