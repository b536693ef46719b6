"""Headless Chromium (Debian's `chromium`) for the tests that render our pages as a browser does: one page rendered
(`render`), or a person's browser driven by Playwright (`browsing`, `person`, `shots`).

Started as the project's brief says: no sandbox, GPU, QUIC, first-run, background networking, component
updates or sync, with a fresh profile each time. Where Chromium is missing the tests skip, except where
AUTOGRADER_REQUIRE_BROWSER=1 (.ci/run sets it after installing Chromium): there a missing browser fails.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page

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


#: the widths every page is looked at: a laptop, and a phone (an iPhone's 390 CSS pixels)
DESKTOP, PHONE = (1280, 900), (390, 844)


@contextmanager
def browsing(*flags: str) -> Iterator[Browser]:
    """Headless Chromium (Debian's, from chromium()) driven by Playwright, with a fresh profile: a person's browser,
    cookies, forms, file inputs and all. Contexts it makes are separate people. `flags`: more of Chromium's own."""
    from playwright.sync_api import sync_playwright

    path = chromium()
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=path, args=[*(f for f in FLAGS if f != "--headless"), *flags])
        try:
            yield browser
        finally:
            browser.close()


def person(browser: Browser, **options: Any) -> BrowserContext:
    """A person's browser window (its own cookies), at desktop width."""
    return browser.new_context(viewport={"width": DESKTOP[0], "height": DESKTOP[1]}, **options)


def shots(page: Page, folder: Path, name: str) -> dict[str, Path]:
    """The page as it is now, whole, at desktop and at phone width (the PNGs, to open and look at); asserts that
    at phone width nothing but a table's own box scrolls sideways (the page itself fits)."""
    folder.mkdir(parents=True, exist_ok=True)
    taken = {}
    for label, (width, height) in (("desktop", DESKTOP), ("phone", PHONE)):
        page.set_viewport_size({"width": width, "height": height})
        wide = page.evaluate("document.documentElement.scrollWidth")
        assert wide <= width + 1, f"{name} at {width} px is {wide} px wide: something is cut off or overflows"
        taken[label] = folder / f"{name}-{label}.png"
        page.screenshot(path=str(taken[label]), full_page=True)
    page.set_viewport_size({"width": DESKTOP[0], "height": DESKTOP[1]})
    return taken


def shots_folder(default_prefix: str) -> Path:
    """Where screenshots go: $AUTOGRADER_SHOTS if set (to keep and look at), else a new temporary folder."""
    folder = Path(os.environ.get("AUTOGRADER_SHOTS") or tempfile.mkdtemp(prefix=default_prefix))
    folder.mkdir(parents=True, exist_ok=True)
    return folder
