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
from sessionproof.conditions import parse_arm
from sessionproof.conditions._internal import hooks_for
from sessionproof.engine import execute_run
from sessionproof.engine._internal import RunPlan, SessionList
from sessionproof.errors import InputFileError
from sessionproof.records import ErrorClass, Scenario, Session, TerminationReason
from sessionproof.suites import load_suite

pytestmark = pytest.mark.slow  # most tests here take seconds each

SERVER = Path(__file__).parent / "mcp_server.py"


def _suite(tmp_path: Path, mcp: str, scenarios: str, timeout_s: float = 3) -> Path:
    path = tmp_path / "mcp.yaml"
    path.write_text(
        f"domains:\n  world:\n    mcp: {mcp}\n    timeout_s: {timeout_s}\nscenarios:\n{scenarios}"
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
    assert good.outcome is not None and good.outcome.success  # it had its own server
    if tool == "crash":
        return  # see the next test: a server that is gone ends its session as infra_error
    # A hung server stays broken for the rest of its session (it answers nothing after):
    # a timeout is a tool failure the agent may handle, so the session is judged, and fails.
    assert bad.outcome is not None and not bad.outcome.success
    assert all(r.error_class is not None for r in bad.tool_results())


def test_a_server_that_crashes_mid_session_ends_it_as_infra_error(tmp_path: Path) -> None:
    # No hang here: a generous timeout keeps a slow server start on a busy machine apart.
    scenarios = _scenario("bad", "add", "crash", "add") + _scenario("ok", "add")
    path = _suite(tmp_path, STDIO, scenarios, timeout_s=60)
    bad, good = _run(path)
    # The call that met the crash is in the trace, classified; nothing is called after it.
    assert [r.error_class for r in bad.tool_results()] == [None, ErrorClass.unavailable]
    assert bad.termination is TerminationReason.infra_error
    assert "MCP server is gone" in bad.termination_detail
    assert bad.outcome is None  # not judged: the harness's tools failed, not the agent
    assert good.outcome is not None and good.outcome.success
    # Injected `unavailable` faults are the agent's to handle: they never end a session.
    path = _suite(tmp_path, STDIO, _scenario("f", "add"), timeout_s=60)
    (faulted,) = _run(path, "faults=unavailable:100%")
    assert faulted.tool_results()[0].error_class is ErrorClass.unavailable
    assert faulted.termination is not TerminationReason.infra_error


def test_a_slow_starting_server_is_not_a_timeout_of_its_calls(tmp_path: Path) -> None:
    # timeout_s bounds each call (a hung tool); the start and handshake have their own
    # allowance, so a server slower to start than one call may take still lists and runs.
    mcp = f'{{command: [python, {SERVER}], env: {{SLOW_START: "2"}}}}'
    path = _suite(tmp_path, mcp, _scenario("ok", "add"), timeout_s=0.5)
    (session,) = _run(path)
    assert session.outcome is not None and session.outcome.success, session.tool_results()


def test_shared_true_is_refused_with_the_reason_and_the_way_to_share(tmp_path: Path) -> None:
    # One server for every session would carry one session's writes into the next and mix
    # concurrent sessions' writes, so verdicts would depend on scheduling; a server the user
    # runs and names by `url` is the shared form, with that caveat theirs.
    path = _suite(tmp_path, f"{{command: [python, {SERVER}], shared: true}}", _scenario("s", "add"))
    with pytest.raises(InputFileError) as caught:
        load_suite(str(path))
    message = str(caught.value)
    assert "mcp.yaml" in message and "shared" in message
    assert "url" in message and "state" in message
