"""Headless Chromium (Debian's `chromium`) for the tests that render our pages as a browser does.

Started as the project's brief says: no sandbox, GPU, QUIC, first-run, background networking, component
updates or sync, with a fresh profile each time. Where Chromium is missing the tests skip, except where
AUTOGRADER_REQUIRE_BROWSER=1 (.ci/run sets it after installing Chromium): there a missing browser fails.
"""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync")


def chromium() -> str:
    """The browser's path, or a skip (a failure where the browser is required)."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        if os.environ.get("AUTOGRADER_REQUIRE_BROWSER") == "1":
            pytest.fail("AUTOGRADER_REQUIRE_BROWSER=1 but no chromium on PATH (.ci/run installs Debian's chromium)")
        pytest.skip("needs headless Chromium (apt-get install chromium)")
    return found


def render(page: Path, *, screenshot: Path | None = None, size: tuple[int, int] = (1000, 900),
           budget_ms: int = 5000) -> str:
    """The DOM after the page's scripts ran (--dump-dom), or a PNG of it at `screenshot`."""
    with tempfile.TemporaryDirectory(prefix="chromium-profile-") as profile:
        what = [f"--screenshot={screenshot}", f"--window-size={size[0]},{size[1]}"] if screenshot else ["--dump-dom"]
        done = subprocess.run([chromium(), *FLAGS, f"--user-data-dir={profile}", f"--virtual-time-budget={budget_ms}",
                               *what, page.as_uri()], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


class Driven:
    """Headless Chromium driven over the DevTools protocol on a pipe (--remote-debugging-pipe: JSON messages ended
    by NUL, commands on fd 3, answers and events on fd 4), for what a user does with a page: open it, click a button
    (a real mouse event: the form's request is the browser's own, its Origin included), read the DOM, take a PNG."""

    def __init__(self, size: tuple[int, int] = (1280, 1400)) -> None:
        self._profile = tempfile.TemporaryDirectory(prefix="chromium-profile-")
        commands, self._to = os.pipe()
        self._from, answers = os.pipe()
        self._process = subprocess.Popen(
            [chromium(), *FLAGS, f"--user-data-dir={self._profile.name}", "--remote-debugging-pipe",
             f"--window-size={size[0]},{size[1]}", "about:blank"],
            pass_fds=(3, 4), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=lambda: _onto_3_and_4(commands, answers))
        os.close(commands)
        os.close(answers)
        self._buffer = b""
        self._next = 0
        self._events: list[dict[str, Any]] = []
        target = self._call("Target.createTarget", url="about:blank")["targetId"]
        self._session = self._call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        self._call("Page.enable", session=True)

    def __enter__(self) -> Driven:
        return self

    def __exit__(self, *_: object) -> None:
        self._process.kill()
        self._process.wait()
        os.close(self._to)
        os.close(self._from)
        self._profile.cleanup()

    def _call(self, method: str, session: bool = False, **params: Any) -> dict[str, Any]:
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params}
        if session:
            message["sessionId"] = self._session
        os.write(self._to, json.dumps(message).encode() + b"\0")
        while True:
            found = self._read()
            if found.get("id") == self._next:
                if "error" in found:
                    raise AssertionError(f"{method}: {found['error']}")
                result: dict[str, Any] = found.get("result", {})
                return result
            self._events.append(found)

    def _read(self) -> dict[str, Any]:
        ends = time.monotonic() + 60
        while b"\0" not in self._buffer:
            if time.monotonic() > ends or not select.select([self._from], [], [], 60)[0]:
                raise AssertionError("Chromium said nothing for 60 s")
            chunk = os.read(self._from, 1 << 16)
            if not chunk:
                raise AssertionError("Chromium left")
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        found: dict[str, Any] = json.loads(message)
        return found

    def _loaded(self) -> None:
        while True:
            event = self._events.pop(0) if self._events else self._read()
            if event.get("method") == "Page.loadEventFired":
                return

    def open(self, url: str) -> str:
        """Go to `url` as typed in the address bar; the DOM once it loaded."""
        self._events.clear()
        self._call("Page.navigate", session=True, url=url)
        self._loaded()
        return self.dom()

    def click(self, selector: str) -> str:
        """Click the middle of the element `selector` names, as a mouse does; the DOM of the page it leads to."""
        box = self._evaluate(f"(() => {{ const r = document.querySelector({json.dumps(selector)})"
                             ".getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()")
        self._events.clear()
        for kind in ("mousePressed", "mouseReleased"):
            self._call("Input.dispatchMouseEvent", session=True, type=kind, x=box[0], y=box[1], button="left",
                       clickCount=1)
        self._loaded()
        return self.dom()

    def dom(self) -> str:
        return str(self._evaluate("document.documentElement.outerHTML"))

    def screenshot(self, path: Path) -> None:
        path.write_bytes(base64.b64decode(self._call("Page.captureScreenshot", session=True)["data"]))

    def _evaluate(self, expression: str) -> Any:
        found = self._call("Runtime.evaluate", session=True, expression=expression, returnByValue=True)
        if "exceptionDetails" in found:
            raise AssertionError(f"{expression}: {found['exceptionDetails']}")
        return found["result"].get("value")


def _onto_3_and_4(commands: int, answers: int) -> None:
    """In the child: the pipe's ends as fds 3 and 4, whichever fds they had (copied first, so neither overwrites
    the other)."""
    first, second = os.dup(commands), os.dup(answers)
    os.dup2(first, 3)
    os.dup2(second, 4)
