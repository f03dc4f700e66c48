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
