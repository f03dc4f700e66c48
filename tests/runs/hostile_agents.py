"""Hostile `python:` agents for `python:tests.runs.hostile_agents:NAME` specs: a plain
function that blocks, one that asks the interpreter to exit, one that ends its process."""

from __future__ import annotations

import asyncio
import os
import sys
import time

from sessionproof.agents import AgentRequest, AgentResponse, OracleAgent

TARGET = "cancel-two-orders-parallel"
"""The demo scenario (the fourth) the hostile agents misbehave on."""
SPANS_ENV = "SESSIONPROOF_TEST_SPANS"
"""A file each `sleepy` decision appends `start end` to (its wall-clock span)."""

_oracle = OracleAgent()


def _oracle_reply(request: AgentRequest) -> AgentResponse:
    return asyncio.run(_oracle.respond(request))


def blocks(request: AgentRequest) -> AgentResponse:
    """A plain function: blocks 20 s (a synchronous HTTP call that hangs) on the target."""
    if request.scenario is not None and request.scenario.id == TARGET:
        time.sleep(20)
    return _oracle_reply(request)


def sleepy(request: AgentRequest) -> AgentResponse:
    """A plain function taking 0.3 s per decision (a blocking model call); logs its span."""
    start = time.time()
    time.sleep(0.3)
    with open(os.environ[SPANS_ENV], "a", encoding="utf-8") as log:
        log.write(f"{start} {time.time()}\n")
    return _oracle_reply(request)


def calls_exit(request: AgentRequest) -> AgentResponse:
    """A plain function calling `sys.exit(4)` on the target."""
    if request.scenario is not None and request.scenario.id == TARGET:
        sys.exit(4)
    return _oracle_reply(request)


async def exits_process(request: AgentRequest) -> AgentResponse:
    """Ends its whole process on the target (no exception, no cleanup), every time."""
    if request.scenario is not None and request.scenario.id == TARGET:
        os._exit(3)
    return await _oracle.respond(request)
