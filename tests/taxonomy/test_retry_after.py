"""One Retry-After parser: a naive HTTP date is UTC, for the guard and the provider agents."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterator

import httpx
import pytest

from sessionproof.agents._retry import retry_after_seconds as agents_retry_after
from sessionproof.taxonomy._internal import parse_retry_after, retry_after_s, retry_after_seconds


@pytest.fixture
def far_from_utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Local time nine hours ahead of UTC, so reading a UTC date as local time shows."""
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def _naive_http_date(seconds_ahead: int) -> str:
    # "-0000" is RFC 5322's "zone unknown": parsedate_to_datetime gives a naive datetime.
    when = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=seconds_ahead)
    return when.strftime("%a, %d %b %Y %H:%M:%S -0000")


@pytest.mark.usefixtures("far_from_utc")
def test_naive_http_date_is_utc_everywhere() -> None:
    value = _naive_http_date(120)
    waits = [
        parse_retry_after(value),
        retry_after_seconds({"retry-after": value}),
        agents_retry_after(httpx.Headers({"retry-after": value})),
        retry_after_s({"Retry-After": value}),
    ]
    for wait in waits:
        assert wait is not None and 100 < wait <= 120


def test_the_agents_use_the_taxonomy_parser() -> None:
    assert agents_retry_after is retry_after_seconds


def test_exception_headers_honour_retry_after_ms() -> None:
    request = httpx.Request("GET", "https://api.example/x")
    response = httpx.Response(429, request=request, headers={"retry-after-ms": "1500"})
    exc = httpx.HTTPStatusError("slow", request=request, response=response)
    assert retry_after_s(exc) == 1.5
