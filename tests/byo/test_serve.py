"""`serve`: a real MCP client (the SDK's, over streamable HTTP) drives one scenario's tools
to a verdict — a pass, a fail, under faults — and the session is stored like a run's."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client
from typer.testing import CliRunner

from sessionproof import runs
from sessionproof.cli._internal import app
from sessionproof.errors import ConfigError
from sessionproof.records import TerminationReason
from sessionproof.runs._internal import ServeReport
from sessionproof.store import Store

runner = CliRunner()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "proj"
    result = runner.invoke(app, ["init", str(path)])
    assert result.exit_code == 0, result.output
    return path


Calls = list[tuple[str, dict[str, Any]]]


async def _drive(url: str, calls: Calls) -> tuple[list[str], list[tuple[bool, str]]]:
    """Connect, list the tools, make `calls`, then end the MCP session (the client's exit)."""
    async with (
        streamablehttp_client(url) as (read, write, _),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        names = [t.name for t in (await session.list_tools()).tools]
        results = []
        for name, args in calls:
            result = await session.call_tool(name, args)
            text = "".join(getattr(c, "text", "") for c in result.content)
            results.append((bool(result.isError), text))
    return names, results


def _serve(config: runs.ServeConfig, calls: Calls) -> tuple[ServeReport, Any]:
    async def main() -> tuple[ServeReport, Any]:
        ready: asyncio.Queue[str] = asyncio.Queue()
        task = asyncio.create_task(runs.aserve(config, on_ready=ready.put_nowait))
        url = await ready.get()
        driven = await _drive(url, calls)
        return await task, driven

    return asyncio.run(main())


CANCEL = [
    ("get_order", {"order_id": "O1002"}),
    ("cancel_order", {"order_id": "O1002", "reason": "ordered_by_mistake"}),
]


def test_a_client_that_does_the_task_passes_and_the_session_is_stored(
    project: Path, tmp_path: Path
) -> None:
    store = tmp_path / "s.duckdb"
    config = runs.ServeConfig(suite=str(project), scenario="cancel-teapot", store=store)
    report, (names, results) = _serve(config, CANCEL)
    assert {"get_order", "cancel_order", "update_address"} <= set(names)
    assert [err for err, _ in results] == [False, False]
    assert "cancelled" in results[1][1]
    assert report.success, report.session.outcome
    assert report.session.termination is TerminationReason.agent_stop
    # The calls are the session's events, as in a run.
    assert [c.name for c in report.session.tool_calls()] == ["get_order", "cancel_order"]
    with Store.open(store) as db:
        (row,) = db.session_rows(report.run_id)
        (stored,) = db.load_sessions(report.run_id)
    assert row.success is True
    assert [r.output for r in stored.tool_results()] == [t for _, t in results]


def test_a_client_that_breaks_a_rule_fails(project: Path) -> None:
    calls = [("update_address", {"order_id": "O1002", "address": "1 Elm St"})]
    config = runs.ServeConfig(suite=str(project), scenario="cancel-teapot")
    report, _ = _serve(config, calls)
    assert not report.success
    assert report.session.outcome is not None
    failed = {c.name for c in report.session.outcome.criteria if c.passed is False}
    assert "forbidden" in failed or "db" in failed, report.session.outcome.criteria


def test_faults_reach_the_client_and_the_session_records_them(project: Path) -> None:
    config = runs.ServeConfig(suite=str(project), scenario="cancel-teapot", faults="100%")
    report, (_, results) = _serve(config, CANCEL)
    assert all(err for err, _ in results)  # every call failed, as the agent saw it
    assert all(r.injected for r in report.session.tool_results())
    assert not report.success  # nothing was cancelled


def test_an_unknown_scenario_is_one_config_error(project: Path) -> None:
    config = runs.ServeConfig(suite=str(project), scenario="no-such")
    with pytest.raises(ConfigError, match=r"no scenario 'no-such'.*cancel-teapot"):
        runs.serve(config)


def test_a_taken_port_is_one_config_error(project: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        config = runs.ServeConfig(suite=str(project), scenario="cancel-teapot", port=port)
        with pytest.raises(ConfigError, match=f"cannot serve MCP on 127.0.0.1:{port}"):
            runs.serve(config)


@pytest.mark.slow
def test_the_cli_prints_the_url_then_the_verdict(project: Path, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2] / "src")}
    args = ["serve", "--suite", str(project), "--scenario", "cancel-teapot", "--json"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "sessionproof.cli", *args, "--store", str(tmp_path / "s.duckdb")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:"), (url, proc.stderr and proc.stderr.read())
        asyncio.run(_drive(url, CANCEL))
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    verdict = json.loads(out)
    assert verdict["success"] is True
    assert verdict["tool_calls"] == 2
