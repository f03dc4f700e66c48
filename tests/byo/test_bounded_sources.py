"""Every call to a live tool service is bounded in wall-clock time and in bytes, against real
loopback servers that drip, never end, or inflate; an MCP server's helpers end with it."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import psutil
import pytest

from sessionproof.domains.sources import mcp_source
from sessionproof.domains.sources.mcp_source import McpDomainSpec
from sessionproof.errors import ConfigError
from sessionproof.records import ErrorClass

from .hostile_mcp import http_server
from .test_mcp import _run, _scenario, _suite
from .test_unusable_sources import HOSTILE, _openapi_suite

pytestmark = pytest.mark.slow  # most tests here take seconds each

MB = 1024 * 1024


def _rss() -> int:
    rss: int = psutil.Process().memory_info().rss
    return rss


@pytest.mark.parametrize(
    ("kind", "error_class"),
    [
        ("drip", ErrorClass.timeout),  # one byte every 2 s: each read is quick, the call not
        ("endless", ErrorClass.truncated_output),
        ("gzip-bomb", ErrorClass.truncated_output),  # 256 KB inflating to 256 MiB
    ],
)
def test_an_openapi_call_is_bounded_in_time_and_bytes(
    tmp_path: Path, kind: str, error_class: ErrorClass
) -> None:
    before = _rss()
    started = time.monotonic()
    with http_server(kind) as base:
        (session,) = _run(_openapi_suite(tmp_path, base))
    took = time.monotonic() - started
    (result,) = session.tool_results()
    assert result.error_class is error_class, result.output
    assert result.latency_s < 3 + 2  # timeout_s is 3: the whole call, not each read
    assert took < 30
    assert _rss() - before < 300 * MB
    assert session.outcome is not None  # the service answered: judged, and failed
    assert not session.outcome.success


def test_an_mcp_url_with_a_never_ending_event_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    # Before: one SSE event without end grew ~2 GB in 5 s.
    monkeypatch.setattr(mcp_source, "STARTUP_TIMEOUT_S", 3.0)
    before = _rss()
    started = time.monotonic()
    with http_server("sse-endless") as base, pytest.raises(ConfigError) as caught:
        McpDomainSpec("w", url=f"{base}/mcp", timeout_s=1).tools()
    assert time.monotonic() - started < 15
    assert _rss() - before < 300 * MB
    assert base in str(caught.value) and "handshake" in str(caught.value)


def test_an_mcp_command_s_helpers_end_with_its_session(tmp_path: Path) -> None:
    # Before: the server went, the helper it started (as behind `sh -c`) ran on, one per
    # session.
    pids = tmp_path / "pids"
    pids.mkdir()
    script = tmp_path / "wrap.py"
    script.write_text(
        "import os, sys, uuid\n"
        f"out = os.path.join({str(pids)!r}, uuid.uuid4().hex)\n"
        f"os.execv(sys.executable, [sys.executable, {str(HOSTILE)!r}, 'helper', out])\n"
    )
    path = _suite(
        tmp_path, f"{{command: [python, {script}]}}", _scenario("a", "add") + _scenario("b", "add")
    )
    sessions = _run(path)
    assert all(s.outcome is not None and s.outcome.success for s in sessions)
    helpers = [int(p.read_text()) for p in pids.iterdir()]
    assert len(helpers) == 3  # the listing at load, and one server per session
    deadline = time.monotonic() + 5
    alive = helpers
    while alive and time.monotonic() < deadline:
        alive = [
            p
            for p in helpers
            if psutil.pid_exists(p) and psutil.Process(p).status() != psutil.STATUS_ZOMBIE
        ]
        time.sleep(0.1)
    assert alive == [], json.dumps(alive)


class _Peak:
    """The process's peak RSS while the block runs (sampled every 20 ms)."""

    def __enter__(self) -> _Peak:
        self.start = self.peak = _rss()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()
        return self

    def _watch(self) -> None:
        while not self._stop.wait(0.02):
            self.peak = max(self.peak, _rss())

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    @property
    def growth(self) -> int:
        return self.peak - self.start


def test_an_mcp_url_tool_call_with_a_never_ending_event_is_bounded(tmp_path: Path) -> None:
    # Before: one SSE event without end grew the run by ~1.4 GB in 8 s; now: capped at the
    # response cap, the call a timeout.
    started = time.monotonic()
    with http_server("mcp-endless-call") as base, _Peak() as peak:
        path = _suite(tmp_path, f'{{url: "{base}/mcp"}}', _scenario("s", "add"), timeout_s=5)
        (session,) = _run(path)
    assert time.monotonic() - started < 30
    assert peak.growth < 200 * MB, peak.growth >> 20
    (result,) = session.tool_results()
    assert result.error_class is ErrorClass.timeout and result.latency_s < 5 + 2, result
