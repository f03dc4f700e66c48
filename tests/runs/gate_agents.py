"""Agents of known quality for the gate's tests, given as `python:tests.runs.gate_agents:NAME`.

Each plays the oracle, but quits a whole session (answers in text, calls no tool) with a fixed
probability, drawn once per session from its own salt and the session's seed: two agents with
different salts fail independently, the same agent twice fails alike. Every decision reports a
model call with fixed token counts, so the gate's cost block has something to count."""

from __future__ import annotations

import hashlib
import random

from sessionproof.agents import AgentRequest, AgentResponse, OracleAgent
from sessionproof.errors import InfraError
from sessionproof.records import Message
from sessionproof.records._internal import ModelCall, Usage

_oracle = OracleAgent()


def _agent(salt: str, quits: float, tokens_in: int, tokens_out: int):  # type: ignore[no-untyped-def]
    async def respond(request: AgentRequest) -> AgentResponse:
        key = f"{salt}|{request.seed}|{request.session_id}"
        coin = random.Random(hashlib.sha256(key.encode()).digest()).random()
        call = ModelCall(
            provider="test",
            model=salt,
            usage=Usage(input_tokens=tokens_in, output_tokens=tokens_out),
        )
        if coin < quits:
            return AgentResponse(message=Message.assistant("I cannot do that."), model_calls=[call])
        answer = await _oracle.respond(request)
        return AgentResponse(message=answer.message, model_calls=[call])

    return respond


steady = _agent("steady", 0.15, 100, 20)
"""Succeeds in about 85% of sessions (where the oracle does)."""
steady_twin = _agent("steady-twin", 0.15, 100, 20)
"""As good as `steady`, failing independently of it."""
slipping = _agent("slipping", 0.20, 100, 20)
"""Succeeds in about 80% of sessions: about 5 points under `steady`, on the gate's default
margin, where no verdict is likely."""
shaky = _agent("shaky", 0.55, 50, 10)
"""Succeeds in about 45% of sessions, at half the tokens per decision."""


async def unreachable_at_times(request: AgentRequest) -> AgentResponse:
    """The oracle, but its provider is unreachable in about a third of the sessions: those end
    as infra errors, with no verdict."""
    key = f"unreachable|{request.seed}|{request.session_id}"
    if random.Random(hashlib.sha256(key.encode()).digest()).random() < 0.35:
        raise InfraError("the provider did not answer (test)")
    return await _oracle.respond(request)
