"""Shared fixtures: where the project's folders are, and a running sandbox."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from grader.judge.catalog import Catalog
from grader.run.sandbox import Sandbox

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return Catalog(ROOT / "exercises")


@pytest.fixture(scope="session")
def sandbox() -> Iterator[Sandbox]:
    with Sandbox() as running:
        yield running
