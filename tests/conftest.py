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


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Which tests xdist may spread over its workers one by one (`--dist loadgroup`), and which go together: the tests
    of a file that sets something up once for its tests (a fixture of its own scoped wider than a test: a server,
    PostgreSQL, a graded class) run on one worker, so that it starts once; every other test goes wherever a worker
    is free (test_samples.py's 296 graded samples were the suite's longest file, on one worker under loadfile)."""
    for item in items:
        if _sets_up_once(item):
            item.add_marker(pytest.mark.xdist_group(item.path.stem))


def _sets_up_once(item: pytest.Item) -> bool:
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return True
    file = item.nodeid.split("::")[0]
    return any(d.scope != "function" and d.baseid == file for defs in info.name2fixturedefs.values() for d in defs)


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


@pytest.fixture(scope="session", autouse=True)
def student_settings() -> Iterator[Path]:
    """The suite's own $XDG_CONFIG_HOME, for `grade submit` run here and in subprocesses: which server each token
    was first sent to (grader.service.client.where) is kept there, never in the user's own."""
    with tempfile.TemporaryDirectory(prefix="autograd-grader-test-config-") as folder:
        before = os.environ.get("XDG_CONFIG_HOME")
        os.environ["XDG_CONFIG_HOME"] = folder
        yield Path(folder)
        if before is None:
            del os.environ["XDG_CONFIG_HOME"]
        else:
            os.environ["XDG_CONFIG_HOME"] = before


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return Catalog(ROOT / "exercises")


@pytest.fixture(scope="session")
def sandbox() -> Iterator[Sandbox]:
    with Sandbox() as running:
        yield running
