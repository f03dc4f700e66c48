"""A run whose process is killed shows as interrupted, not running (issue 34, item 14): the
run records its owning process, and `runs` / `show` read a `running` run whose process is gone
from this host as `interrupted`; `run --resume` still finishes it."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sessionproof.cli._internal import app
from sessionproof.store import RunManifest, Store
from sessionproof.store._owner import RunOwner, owner_gone, process_started, this_process

runner = CliRunner()
CLI = Path(sys.executable).with_name("sessionproof")

AGENT = '''
import asyncio, os
from sessionproof.agents import AgentRequest, AgentResponse
from sessionproof.records import Message


async def respond(request: AgentRequest) -> AgentResponse:
    """Replies at once; with SLOW set, only in one scenario, and hangs in the others."""
    assert request.scenario is not None
    if os.environ.get("SLOW") and not request.scenario.id.startswith("cancel-pending"):
        await asyncio.sleep(600)
    return AgentResponse(message=Message.assistant("Done."))
'''


def _runs(store: Path) -> list[dict[str, object]]:
    result = runner.invoke(app, ["runs", "--store", str(store), "--json"])
    assert result.exit_code == 0, result.output
    listed: list[dict[str, object]] = json.loads(result.stdout)
    return listed


def test_owner_checks() -> None:
    me = this_process()
    assert me.pid == os.getpid() and me.host == socket.gethostname()
    assert not owner_gone(me)
    assert not owner_gone(None)  # a run stored before owners: cannot tell
    assert not owner_gone(RunOwner(pid=1, host="another-host", started=None))
    # The same pid with another start time: the pid was reused, the owner is gone.
    started = process_started(os.getpid())
    assert started is not None
    assert owner_gone(me.model_copy(update={"started": started + 1}))


@pytest.mark.slow
def test_a_killed_run_is_interrupted_and_resumes(tmp_path: Path) -> None:
    (tmp_path / "hang_agent.py").write_text(AGENT, encoding="utf-8")
    store = tmp_path / "s.duckdb"
    args = [str(CLI), "run", "--suite", "demo", "--model", "python:hang_agent:respond"]
    args += ["--limit", "3", "--store", str(store), "--no-report"]
    env = dict(os.environ, SLOW="1")
    proc = subprocess.Popen(args, cwd=tmp_path, env=env, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while True:
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            listed = _runs(store) if store.exists() else []
            if listed and int(str(listed[0]["sessions_done"])) >= 1:
                break
            assert time.monotonic() < deadline, "the run wrote no session"
            time.sleep(0.5)
        assert listed[0]["status"] == "running"  # its process is alive
        run_id = str(listed[0]["run_id"])
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    with Store.open_for_reading(store) as db:
        stored = db._query("SELECT status FROM runs WHERE run_id = ?", [run_id])
        manifest = db.get_run(run_id)
    assert stored == [("running",)]  # what the killed process left
    assert isinstance(manifest, RunManifest) and manifest.owner is not None
    assert manifest.owner.pid == proc.pid
    assert manifest.status == "interrupted"
    assert _runs(store)[0]["status"] == "interrupted"
    shown = runner.invoke(app, ["show", run_id, "--store", str(store)])
    assert shown.exit_code == 0, shown.output
    assert "status=interrupted" in shown.stdout
    resumed = subprocess.run(
        [str(CLI), "run", "--resume", run_id, "--store", str(store), "--no-report", "--json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert resumed.returncode == 0, resumed.stderr
    listed = _runs(store)
    assert listed[0]["status"] == "finished"
    assert listed[0]["sessions_done"] == listed[0]["sessions_expected"] == 3
