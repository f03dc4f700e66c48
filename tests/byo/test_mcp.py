"""A real MCP server as a domain: over stdio and streamable HTTP, with faults; a server that
crashes, hangs or writes non-JSON gets a classified error and ends only its session."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from sessionproof.agents import OracleAgent
from sessionproof.conditions import hooks_for, parse_arm
from sessionproof.engine import RunPlan, SessionList, execute_run
from sessionproof.records import ErrorClass, Scenario, Session
from sessionproof.suites import load_suite

SERVER = Path(__file__).parent / "mcp_server.py"


def _suite(tmp_path: Path, mcp: str, scenarios: str) -> Path:
    path = tmp_path / "mcp.yaml"
    path.write_text(
        f"domains:\n  world:\n    mcp: {mcp}\n    timeout_s: 3\nscenarios:\n{scenarios}"
    )
    return path


def _scenario(sid: str, *tools: str) -> str:
    actions = ", ".join(
        f"{{tool: {t}, args: {{amount: 2}}}}" if t == "add" else f"{{tool: {t}}}" for t in tools
    )
    return (
        f"  - id: {sid}\n    domain: world\n    user: {{turns: [go]}}\n"
        f"    criteria:\n      gold_actions: [{actions}]\n"
        "      expected_calls: [{tool: add, args: {amount: [2]}}]\n"
    )


def _run(path: Path, arm: str = "baseline") -> list[Session]:
    suite = load_suite(str(path))
    plan = RunPlan(run_id="r", arms=[arm], concurrency=2)
    sink = SessionList()

    def hooks(a: str, seed: int, scenario: Scenario):  # type: ignore[no-untyped-def]
        return hooks_for(parse_arm(a), seed)

    kwargs = {} if arm == "baseline" else {"hooks_for": hooks}
    asyncio.run(execute_run(suite, OracleAgent(), plan, sink, **kwargs))  # type: ignore[arg-type]
    return sorted(sink.sessions, key=lambda s: s.session_id)


STDIO = f"{{command: [python, {SERVER}]}}"


def test_stdio_server_is_a_domain_and_faults_apply(tmp_path: Path) -> None:
    path = _suite(tmp_path, STDIO, _scenario("ok", "add"))
    (clean,) = _run(path)
    assert clean.outcome is not None and clean.outcome.success
    assert clean.tool_results()[0].output == '{"n": 2}'
    (faulted,) = _run(path, "faults=100%")
    result = faulted.tool_results()[0]
    assert result.error_class is not None  # the injected fault reached the agent
    assert faulted.outcome is not None and not faulted.outcome.success


@pytest.fixture
def http_server() -> Iterator[str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, str(SERVER), "http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        for _ in range(200):
            try:
                httpx.get(url, timeout=0.5)
                break
            except httpx.HTTPError:
                if proc.poll() is not None:
                    pytest.fail("the MCP HTTP server exited")
                asyncio.run(asyncio.sleep(0.05))
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_streamable_http_server_is_a_domain_with_faults(tmp_path: Path, http_server: str) -> None:
    path = _suite(tmp_path, f'{{url: "{http_server}"}}', _scenario("ok", "add"))
    (clean,) = _run(path)
    assert clean.outcome is not None and clean.outcome.success
    (faulted,) = _run(path, "faults=100%")
    assert faulted.tool_results()[0].error_class is not None
    assert faulted.outcome is not None and not faulted.outcome.success


@pytest.mark.parametrize(
    ("tool", "error_class"),
    [
        ("crash", ErrorClass.unavailable),
        ("hang", ErrorClass.timeout),
        ("garbage", ErrorClass.timeout),
    ],
)
def test_a_broken_server_is_a_classified_error_and_the_run_goes_on(
    tmp_path: Path, tool: str, error_class: ErrorClass
) -> None:
    path = _suite(tmp_path, STDIO, _scenario("bad", tool, "add") + _scenario("good", "add"))
    bad, good = _run(path)
    first = bad.tool_results()[0]
    assert first.error_class == error_class, first.output
    # The server stays broken for the rest of its session (a hung stdio server answers
    # nothing after): that session fails, judged; the next session has its own server.
    assert bad.outcome is not None and not bad.outcome.success
    assert all(r.error_class is not None for r in bad.tool_results())
    assert good.outcome is not None and good.outcome.success
