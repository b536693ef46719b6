"""What a course needs besides its store, for a restore on a new machine: every file course.toml
names, checked at once, so that a restore says all that is missing in one message rather than one
start at a time.

course.toml, and what it names: the roster, the exercises folder, the course secret (the backup's
submissions drew their seeds from it: a new one would draw others), and with [lti] the LMS
registration (lms.toml) and the tool's key it names.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

CONFIG = "course.toml"


def missing(folder: Path) -> list[str]:
    """Each file or folder the course in `folder` needs that is not there, with what it is for."""
    config = folder / CONFIG
    if not config.is_file():
        return [f"{config} (the course's settings)"]
    data = _toml(config)
    if data is None:
        return []  # unreadable: loading the course says where
    gaps = []
    roster = data.get("roster")
    if isinstance(roster, str) and roster and not (folder / roster).is_file():
        gaps.append(f"{folder / roster} (the roster course.toml names)")
    exercises = data.get("exercises")
    if isinstance(exercises, str) and not (folder / exercises).is_dir():
        gaps.append(
            f"{folder / exercises}/ (the exercises: their solutions and hidden checks grade every "
            "upload)"
        )
    secret = data.get("secret_file", "course-secret")
    if isinstance(secret, str) and not (folder / secret).is_file():
        gaps.append(
            f"{folder / secret} (the course secret: the stored submissions' seeds were drawn "
            "from it)"
        )
    lti = data.get("lti")
    platform = lti.get("platform") if isinstance(lti, dict) else None
    if isinstance(platform, str) and platform:
        registration = folder / platform
        found = _toml(registration) or {}
        if not registration.is_file():
            gaps.append(
                f"{registration} (the LMS registration [lti] names, and the tool's private key it "
                "names)"
            )
        elif (
            isinstance(found.get("key_file"), str)
            and not (registration.parent / found["key_file"]).is_file()
        ):
            gaps.append(
                f"{registration.parent / found['key_file']} (the LTI tool's private key {platform} "
                "names)"
            )
    return gaps


def _toml(path: Path) -> dict[str, Any] | None:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
