"""`serve` of a scenario whose domain is itself an MCP server: every call reaches the server
(before: 404 after the first); a server that dies makes the served session infra_error."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sessionproof import runs
from sessionproof.records import TerminationReason

from .test_mcp import STDIO, _scenario, _suite
from .test_serve import _drive

pytestmark = pytest.mark.slow  # most tests here take seconds each


def _serve(path: Path, calls: list[tuple[str, dict[str, Any]]]) -> Any:
    async def main() -> Any:
        ready: asyncio.Queue[str] = asyncio.Queue()
        config = runs.ServeConfig(suite=str(path), scenario="s")
        task = asyncio.create_task(runs.aserve(config, on_ready=ready.put_nowait))
        driven = await _drive(await ready.get(), calls)
        return await task, driven

    return asyncio.run(main())


def test_every_call_of_a_served_mcp_domain_reaches_its_server(tmp_path: Path) -> None:
    path = _suite(tmp_path, STDIO, _scenario("s", "add"), timeout_s=30)
    report, (_, results) = _serve(path, [("add", {"amount": 2}), ("add", {"amount": 3})])
    assert results == [(False, '{"n": 2}'), (False, '{"n": 5}')]  # one server, its state
    assert report.success, report.session.outcome


def test_a_served_mcp_domain_whose_server_dies_is_infra_error(tmp_path: Path) -> None:
    path = _suite(tmp_path, STDIO, _scenario("s", "add"), timeout_s=30)
    report, (_, results) = _serve(path, [("add", {"amount": 2}), ("crash", {})])
    assert results[1][0] is True
    session = report.session
    assert session.termination is TerminationReason.infra_error
    assert "MCP server is gone" in session.termination_detail
    assert session.outcome is None  # not judged: a pass here would be the harness's word


def test_the_cli_says_not_judged_rather_than_fail(tmp_path: Path) -> None:
    path = _suite(tmp_path, STDIO, _scenario("s", "add"), timeout_s=30)
    src = os.environ.get("PYTHONPATH") or str(Path(__file__).parents[2] / "src")
    env = {**os.environ, "PYTHONPATH": src}
    args = ["serve", "--suite", str(path), "--scenario", "s", "--json"]
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
        asyncio.run(_drive(url, [("crash", {})]))
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    verdict = json.loads(out)
    assert verdict["success"] is None and verdict["judged"] is False  # before: success false
    assert verdict["termination"] == "infra_error"
    assert "MCP server is gone" in verdict["detail"]
