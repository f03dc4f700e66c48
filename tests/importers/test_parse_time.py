"""`parse_time`: Unix seconds from ISO-8601 text (naive times are UTC) or a number."""

from __future__ import annotations

import datetime as dt
import random

from sessionproof.importers._internal import parse_time


def _reference(text: str) -> float:
    stamp = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=dt.UTC)
    return stamp.timestamp()


def test_naive_times_are_utc_to_the_last_bit() -> None:
    rng = random.Random(7)
    start = dt.datetime(1, 1, 1)
    span = (dt.datetime(9999, 12, 31) - start) // dt.timedelta(microseconds=1)
    for _ in range(20_000):
        text = (start + dt.timedelta(microseconds=rng.randrange(span))).isoformat()
        assert parse_time(text) == _reference(text), text


def test_offsets_numbers_and_unreadable_values() -> None:
    for text in ("2025-06-24T18:56:33Z", "2025-06-24T18:56:33.5+02:00", "2025-06-24"):
        assert parse_time(text) == _reference(text)
    assert parse_time("1969-12-31T23:59:59.999999") == -1e-06
    assert parse_time(12) == 12.0 and isinstance(parse_time(12), float)
    for value in ("", "yesterday", "2025-13-01", True, None, [1]):
        assert parse_time(value) is None
