"""Prints the fuzz outcome table (and every distinct failure) at the end of the test run."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from ._pool import WorkerPool
from ._tally import RECORDED, table


@pytest.fixture(scope="session")
def fuzz_pool() -> Iterator[WorkerPool]:
    """Two workers shared by every fuzz test, so imports and caches are paid once."""
    with WorkerPool(jobs=2) as pool:
        yield pool


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: Any) -> None:
    """One row per input kind fuzzed in this session, then each failure's reproducer."""
    if not RECORDED:
        return
    terminalreporter.section("fuzz outcomes")
    terminalreporter.write_line(table(RECORDED))
    for tally in RECORDED:
        if tally.failures:
            terminalreporter.write_line(tally.report())
