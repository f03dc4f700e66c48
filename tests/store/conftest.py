"""Fixtures for the store's tests: a fresh store file in a temporary folder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from sessionproof.store import Store


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    """Where a test's store lives; the parent folder does not exist yet."""
    return tmp_path / "nested" / "store.duckdb"


@pytest.fixture
def store(store_path: Path) -> Iterator[Store]:
    """A new, writable store, closed after the test."""
    with Store.open(store_path) as opened:
        yield opened
