"""An `mcp-agent:` process and every helper it starts end with their session (process
group): no process per session is left behind by a normal, successful run."""

from __future__ import annotations

import time
from pathlib import Path

import psutil

from ..agents.fakeprovider import FakeProvider
from .test_external_agents import (  # noqa: F401  the fixtures
    AGENT,
    CANCEL,
    MOVED,
    ORDER_STATUS,
    _check_scored,
    _run,
    model,
    project,
)


def _alive(pids: list[int]) -> list[int]:
    out = []
    for pid in pids:
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                out.append(pid)
        except psutil.NoSuchProcess:
            continue
    return out


def test_an_mcp_agent_s_helpers_end_with_each_session(
    project: Path,  # noqa: F811
    model: FakeProvider,  # noqa: F811
    tmp_path: Path,
) -> None:
    # Before: the agent process was terminated, the helper it started ran on (one per session).
    pids = tmp_path / "pids"
    pids.mkdir()
    wrapper = tmp_path / "agent.py"
    wrapper.write_text(
        "import os, subprocess, sys, uuid\n"
        "helper = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
        f"open(os.path.join({str(pids)!r}, uuid.uuid4().hex), 'w').write(str(helper.pid))\n"
        f"os.execv(sys.executable, [sys.executable, {str(AGENT)!r}, 'stdio'])\n"
    )
    model.push(*ORDER_STATUS, *CANCEL, *MOVED)
    sessions = _run(project, f"mcp-agent:python {wrapper}")
    _check_scored(sessions)
    helpers = [int(p.read_text()) for p in pids.iterdir()]
    assert len(helpers) == 3
    deadline = time.monotonic() + 5
    while _alive(helpers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _alive(helpers) == []
