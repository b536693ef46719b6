"""Shared fixtures: where the project's folders are, and a running sandbox."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from grader.judge.catalog import Catalog
from grader.run.sandbox import Sandbox

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session", autouse=True)
def expected_cache() -> Iterator[Path]:
    """The suite's own cache of expected values (grader.judge.expected_cache), for `grade` called here and in the
    subprocesses it starts: never the user's, and empty when the session starts."""
    with tempfile.TemporaryDirectory(prefix="autograd-grader-test-cache-") as folder:
        before = os.environ.get("AUTOGRADER_CACHE")
        os.environ["AUTOGRADER_CACHE"] = folder
        yield Path(folder)
        if before is None:
            del os.environ["AUTOGRADER_CACHE"]
        else:
            os.environ["AUTOGRADER_CACHE"] = before


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return Catalog(ROOT / "exercises")


@pytest.fixture(scope="session")
def sandbox() -> Iterator[Sandbox]:
    with Sandbox() as running:
        yield running
