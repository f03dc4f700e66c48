"""Agents given to Ray executor tests as `python:tests.runs.ray_agents:NAME` specs."""

from __future__ import annotations

import os
from pathlib import Path

from sessionproof.agents import AgentRequest, AgentResponse, OracleAgent

MARKER_ENV = "SESSIONPROOF_TEST_RAY_KILL_MARKER"
"""The file whose absence lets `dies_once` kill its worker (set before the cluster starts,
so every worker process inherits it)."""

_oracle = OracleAgent()


async def dies_once(request: AgentRequest) -> AgentResponse:
    """The oracle, except the first worker to reach the fourth demo scenario's second step
    ends its own process at once (no exception, no cleanup): a worker killed mid-run."""
    marker = Path(os.environ[MARKER_ENV])
    late = request.scenario.id == "cancel-two-orders-parallel"
    if late and request.step >= 1 and not marker.exists():
        marker.write_text(str(os.getpid()))
        os._exit(1)
    return await _oracle.respond(request)


async def exits(request: AgentRequest) -> AgentResponse:
    """The oracle, except that one scenario's first decision asks the interpreter to exit
    (which the engine lets through, as a request to stop the program)."""
    if request.scenario.id == "cancel-two-orders-parallel":
        raise SystemExit("exit asked by the test agent")
    return await _oracle.respond(request)


async def slow(request: AgentRequest) -> AgentResponse:
    """The oracle, a quarter of a second per decision: a run long enough to interrupt."""
    import asyncio

    await asyncio.sleep(0.25)
    return await _oracle.respond(request)


LOG_ENV = "SESSIONPROOF_TEST_AGENT_LOG"
"""The file `logs_where` appends to (set before the run, so forked workers inherit it)."""


async def logs_where(request: AgentRequest) -> AgentResponse:
    """The oracle, which first appends one line per decision to the file named by
    `LOG_ENV`: its process id, the collector's young threshold and frozen object count, and
    the session's id."""
    import gc

    with open(os.environ[LOG_ENV], "a", encoding="utf-8") as log:
        threshold, frozen = gc.get_threshold()[0], gc.get_freeze_count()
        log.write(f"{os.getpid()} {threshold} {frozen} {request.session_id}\n")
    return await _oracle.respond(request)
