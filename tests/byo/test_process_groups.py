"""An `mcp-agent:` process, an MCP domain's server, and every helper they start end with
their session (process group) — also when the run itself is killed with SIGKILL."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

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
from .test_mcp import SERVER as WORLD


def _alive(pids: list[int]) -> list[int]:
    out = []
    for pid in pids:
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                out.append(pid)
        except psutil.NoSuchProcess:
            continue
    return out


@pytest.mark.slow
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


def _wait_for(pids: Path, count: int, proc: subprocess.Popen[str]) -> list[int]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = [int(x) for p in pids.iterdir() for x in p.read_text().split()]
        if len(found) >= count:
            return found
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.1)
    raise AssertionError("the children never started")


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["mcp-agent", "mcp-domain"])
def test_sigkill_of_the_run_leaves_no_child_behind(
    project: Path,  # noqa: F811
    tmp_path: Path,
    kind: str,
) -> None:
    # Before (mcp-agent): 3 of 4 children still ran 5 s after the run was SIGKILLed.
    pids = tmp_path / "pids"
    pids.mkdir()
    wrapper = tmp_path / "child.py"
    then = (
        "import time; time.sleep(600)\n"  # an agent that never answers its turn
        if kind == "mcp-agent"
        else f"os.execv(sys.executable, [sys.executable, {str(WORLD)!r}])\n"  # a real server
    )
    wrapper.write_text(
        "import os, subprocess, sys, uuid\n"
        "helper = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
        f"open(os.path.join({str(pids)!r}, uuid.uuid4().hex), 'w')"
        ".write(f'{os.getpid()} {helper.pid}')\n" + then
    )
    if kind == "mcp-agent":
        suite, model, count = str(project), f"mcp-agent:python {wrapper}", 2
    else:
        path = tmp_path / "s.yaml"
        path.write_text(
            f"domains:\n  world: {{mcp: {{command: [python, {wrapper}]}}, timeout_s: 120}}\n"
            "scenarios:\n  - id: s\n    domain: world\n    user: {turns: [go]}\n"
            "    criteria: {gold_actions: [{tool: hang}]}\n"
        )
        suite, model, count = str(path), "oracle", 4  # the listing's pair, the session's
    src = os.environ.get("PYTHONPATH") or str(Path(__file__).parents[2] / "src")
    store = ["--store", str(tmp_path / "s.duckdb"), "--concurrency", "1"]
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "sessionproof.cli",
            "run",
            "--suite",
            suite,
            "--model",
            model,
            *store,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": src},
    )
    try:
        children = _wait_for(pids, count, proc)
        time.sleep(1)  # the session is under way
    finally:
        proc.kill()
        proc.wait()
    deadline = time.monotonic() + 8
    while _alive(children) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = _alive(children)
    for pid in left:  # do not leave them to the next test
        psutil.Process(pid).kill()
    assert left == []
