"""Agents for the rollout and ATIF export tests, given as `python:tests.runs.rollout_agents:NAME`.

`mixed` plays the oracle in about half the sessions; in about a third it sends every write
with its last string argument spoiled (a mid-session divergence after correct reads); in the
rest its provider never answers (an infra error: a session with no verdict). The draw is one
coin per session from its id and seed, so a rerun gets the same sessions."""

from __future__ import annotations

import hashlib
import random

from sessionproof.agents import AgentRequest, AgentResponse, OracleAgent
from sessionproof.errors import InfraError
from sessionproof.records import Message, ToolCall

_oracle = OracleAgent()


def _coin(request: AgentRequest) -> float:
    key = f"mixed|{request.seed}|{request.session_id}"
    return random.Random(hashlib.sha256(key.encode()).digest()).random()


def _spoiled(call: ToolCall) -> ToolCall:
    args = dict(call.arguments or {})
    keys = [k for k, v in args.items() if isinstance(v, str)]
    if keys:
        args[keys[-1]] = args[keys[-1]] + "-x"
    return ToolCall(id=call.id, name=call.name, arguments=args)


async def mixed(request: AgentRequest) -> AgentResponse:
    """The oracle, an oracle that spoils its writes, or an unreachable provider (see above)."""
    coin = _coin(request)
    if coin < 0.15:
        raise InfraError("the provider did not answer (test)")
    answer = await _oracle.respond(request)
    if coin < 0.5 and answer.message.tool_calls:
        writes = {t.name for t in request.tools if t.write}
        calls = [_spoiled(c) if c.name in writes else c for c in answer.message.tool_calls]
        return AgentResponse(message=Message.assistant(answer.message.content, calls))
    return answer
