"""A tool source that never worked is the harness's failure (infra_error), never a verdict;
a source that cannot be loaded is one line naming the domain, server and phase, no traceback;
a `$ref` bomb is refused at once; noise from a server is one warning, counted."""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sessionproof.agents import OracleAgent
from sessionproof.domains.sources import mcp_source
from sessionproof.domains.sources._internal import OpenAPIError, read_openapi
from sessionproof.engine import execute_run
from sessionproof.engine._internal import RunPlan, SessionList
from sessionproof.records import ErrorClass, TerminationReason
from sessionproof.suites import load_suite

from .hostile_mcp import http_server as hostile_http
from .test_mcp import SERVER, _run, _scenario, _suite, http_server  # noqa: F401  fixture

pytestmark = pytest.mark.slow  # most tests here take seconds each

HOSTILE = Path(__file__).parent / "hostile_mcp.py"
API = {
    "openapi": "3.0.0",
    "info": {"title": "t", "version": "1"},
    "paths": {
        "/add": {
            "post": {
                "operationId": "add",
                "requestBody": {
                    "content": {
                        "application/json": {
                            "schema": {
                                "type": "object",
                                "properties": {"amount": {"type": "integer"}},
                            }
                        }
                    }
                },
            }
        }
    },
}


def _refused_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port  # closed again: every connection to it is refused


def _openapi_suite(tmp_path: Path, base_url: str, document: object = API) -> Path:
    (tmp_path / "api.json").write_text(json.dumps(document))
    path = tmp_path / "api.yaml"
    path.write_text(
        f'domains:\n  world: {{openapi: api.json, base_url: "{base_url}", timeout_s: 3}}\n'
        "scenarios:\n" + _scenario("s1", "add")
    )
    return path


def test_an_openapi_service_refusing_every_connection_is_infra_error(tmp_path: Path) -> None:
    # Before: every call failed `unavailable`, the session ended user_stop and passed (the
    # expected call was made, with the right arguments). Now: not judged, and why.
    base = f"http://127.0.0.1:{_refused_port()}"
    (session,) = _run(_openapi_suite(tmp_path, base))
    assert session.tool_results()[0].error_class is ErrorClass.unavailable
    assert session.termination is TerminationReason.infra_error
    assert session.outcome is None and session.verdict is None
    assert base in session.termination_detail and "cannot be reached" in session.termination_detail


def test_an_openapi_service_reached_but_failing_is_still_judged(tmp_path: Path) -> None:
    # An HTTP 500 is the service answering: a failure the agent may handle, judged.
    with hostile_http("500") as base:
        (session,) = _run(_openapi_suite(tmp_path, base))
    assert session.tool_results()[0].error_class is ErrorClass.server_error
    assert session.termination is not TerminationReason.infra_error
    assert session.outcome is not None


def _once_then(tmp_path: Path, kind: str) -> str:
    """An MCP command that is a real server the first time (the listing at load) and a
    `kind` misbehaving one for every session after."""
    marker = tmp_path / "listed"
    script = tmp_path / "once.py"
    script.write_text(
        "import os, sys\n"
        f"marker = {str(marker)!r}\n"
        "if os.path.exists(marker):\n"
        f"    os.execv(sys.executable, [sys.executable, {str(HOSTILE)!r}, {kind!r}])\n"
        "open(marker, 'w').close()\n"
        f"os.execv(sys.executable, [sys.executable, {str(SERVER)!r}])\n"
    )
    return f"{{command: [python, {script}]}}"


@pytest.mark.parametrize("kind", ["silent", "garbage"])
def test_an_mcp_server_that_never_answers_the_handshake_later_is_infra_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    # Before: each call timed out, the session ended user_stop and passed.
    path = _suite(tmp_path, _once_then(tmp_path, kind), _scenario("s1", "add"), timeout_s=1)
    suite = load_suite(str(path))  # the listing, with the default start-up allowance
    monkeypatch.setattr(mcp_source, "STARTUP_TIMEOUT_S", 2.0)
    started = time.monotonic()
    sink = SessionList()
    asyncio.run(execute_run(suite, OracleAgent(), RunPlan(run_id="r", arms=["baseline"]), sink))
    (session,) = sink.sessions
    assert time.monotonic() - started < 30
    assert session.termination is TerminationReason.infra_error, session.termination_detail
    assert session.outcome is None
    detail = session.termination_detail
    assert "handshake" in detail and "once.py" in detail and "2 s" in detail
    assert [r.error_class for r in session.tool_results()] == [ErrorClass.unavailable]


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sessionproof.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def _one_line_error(tmp_path: Path, suite: Path) -> str:
    result = _cli(
        "run", "--suite", str(suite), "--model", "oracle", "--store", str(tmp_path / "s.db")
    )
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("refused", "handshake: ConnectError"),
        ("not a url", "is not an http(s) URL"),
        ("/tmp/server.py", "is not an http(s) URL"),
        ("500", "handshake: HTTP 500"),
        ("html", "not JSON-RPC"),
    ],
)
def test_an_mcp_url_that_cannot_be_used_is_one_line_at_load(
    tmp_path: Path, url: str, said: str
) -> None:
    # Before: a 110-line traceback ending in CancelledError, the URL never named.
    def check(target: str) -> None:
        path = _suite(tmp_path, f'{{url: "{target}"}}', _scenario("s1", "add"))
        line = _one_line_error(tmp_path, path)
        assert "'world'" in line and target in line and said in line, line

    if url == "refused":
        check(f"http://127.0.0.1:{_refused_port()}/mcp")
    elif url in ("500", "html"):
        with hostile_http(url) as base:
            check(f"{base}/mcp")
    else:
        check(url)


def test_an_mcp_command_that_does_not_exist_is_one_line_at_load(tmp_path: Path) -> None:
    path = _suite(tmp_path, "{command: [/no/such/server]}", _scenario("s1", "add"))
    line = _one_line_error(tmp_path, path)
    assert "'world'" in line and "/no/such/server" in line and "start-up" in line


def test_a_silent_stdio_server_is_one_line_naming_phase_and_limit(tmp_path: Path) -> None:
    # Before: 61 s, then a TimeoutError traceback. The CLI runs with a 2 s start-up limit.
    path = _suite(
        tmp_path, f"{{command: [python, {HOSTILE}, silent]}}", _scenario("s1", "add"), timeout_s=1
    )
    short = (
        "import sys; from sessionproof.domains.sources import mcp_source as m; "
        "m.STARTUP_TIMEOUT_S = 2.0; from sessionproof.cli import main; "
        "sys.argv[0] = 'sessionproof'; main()"
    )
    store = ["--store", str(tmp_path / "s.db")]
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-c", short, "run", "--suite", str(path), "--model", "oracle", *store],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert time.monotonic() - started < 30
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert "hostile_mcp.py silent" in line and "handshake" in line and "2 s" in line
    assert "Welcome to the example server" in line  # what it said instead


def test_openapi_base_url_that_is_not_a_url_is_one_line_at_load(tmp_path: Path) -> None:
    line = _one_line_error(tmp_path, _openapi_suite(tmp_path, "localhost:8080"))
    assert "'world'" in line and "localhost:8080" in line


def test_fixtures_and_python_domains_that_cannot_load_are_one_line(tmp_path: Path) -> None:
    (tmp_path / "tools.json").write_text(
        json.dumps([{"type": "function", "function": {"name": "f"}}])
    )
    fixtures = tmp_path / "fx.yaml"
    fixtures.write_text(
        "domains:\n  world: {tools: tools.json, fixtures: missing.yaml}\n"
        "scenarios:\n  - {id: s1, domain: world, user: {turns: [go]}}\n"
    )
    assert "missing.yaml" in _one_line_error(tmp_path, fixtures)
    (tmp_path / "broken_tools.py").write_text("import no_such_module_at_all\n")
    python = tmp_path / "py.yaml"
    python.write_text(
        "domains:\n  world: {python: broken_tools:Tools}\n"
        "scenarios:\n  - {id: s1, domain: world, user: {turns: [go]}}\n"
    )
    line = _one_line_error(tmp_path, python)
    assert "broken_tools" in line and "no_such_module_at_all" in line


def test_an_openapi_ref_bomb_is_refused_in_well_under_a_second() -> None:
    # 3 properties each $ref-ing their own schema: 3^20 nodes when inlined to depth 20.
    bomb = {
        "openapi": "3.0.0",
        "paths": {"/a": {"post": {"operationId": "a", "requestBody": {"content": {
            "application/json": {"schema": {"$ref": "#/components/schemas/N"}}}}}}},
        "components": {"schemas": {"N": {"type": "object", "properties": {
            k: {"$ref": "#/components/schemas/N"} for k in "abc"}}}},
    }  # fmt: skip
    started = time.monotonic()
    tools = read_openapi(bomb)  # recursion is cut at the first ref back: a small schema
    assert time.monotonic() - started < 2
    assert tools.specs[0].parameters["properties"]["a"] == {"type": "object"}
    # Not recursive, but repeated: L0 -> 3 x L1 -> ... -> 3 x L19 (3^19 leaves).
    layers = {
        f"L{i}": {"type": "object", "properties": {
            k: {"$ref": f"#/components/schemas/L{i + 1}"} for k in "abc"}}
        for i in range(19)
    }  # fmt: skip
    layers["L19"] = {"type": "string"}
    laughs = dict(bomb, components={"schemas": layers})
    laughs["paths"] = {"/a": {"post": {"operationId": "a", "requestBody": {"content": {
        "application/json": {"schema": {"$ref": "#/components/schemas/L0"}}}}}}}  # fmt: skip
    started = time.monotonic()
    with pytest.raises(OpenAPIError, match="larger than"):
        read_openapi(laughs)
    assert time.monotonic() - started < 2


def test_a_noisy_stdio_server_is_one_warning_counted(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # Before: one traceback per non-JSON line (1,204 for one run, 962 KB of stderr).
    mcp = f"{{command: [python, {HOSTILE}, noisy, '300']}}"
    scenarios = _scenario("a", "add") + _scenario("b", "add")
    path = _suite(tmp_path, mcp, scenarios, timeout_s=30)
    with caplog.at_level(logging.WARNING):
        sessions = _run(path)
    assert all(s.outcome is not None and s.outcome.success for s in sessions)
    warned = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warned) == 1, warned
    assert "300 stdout lines" in warned[0] and "log line 0" in warned[0]
    assert not [r for r in caplog.records if r.exc_info]


def test_an_mcp_url_that_goes_down_mid_session_is_infra_error(
    tmp_path: Path,
    http_server: str,  # noqa: F811  the fixture
) -> None:
    # The `crash` tool ends the HTTP server itself: the call after cannot connect at all.
    path = _suite(tmp_path, f'{{url: "{http_server}"}}', _scenario("s", "add", "crash", "add"))
    (session,) = _run(path)
    results = session.tool_results()
    assert results[0].error_class is None
    assert results[-1].error_class is ErrorClass.unavailable
    assert session.termination is TerminationReason.infra_error
    assert http_server in session.termination_detail
    assert session.outcome is None
