"""An agent for `python:tests.security.agents:echo_agent`: it leaks every fake secret of the
environment through every channel a session records."""

from __future__ import annotations

import base64
import json
import zlib
from urllib.parse import quote

from sessionproof.agents import AgentRequest, AgentResponse
from sessionproof.agents._protocol import OutputIssue
from sessionproof.errors import InfraError
from sessionproof.records import ErrorClass, Message, ToolCall
from sessionproof.records._internal import ModelCall

from .keys import ENV_SECRETS

# Only what the environment holds: a URL's credentials reach the scrubber when the spec is
# read, and this agent runs with no such spec.
_JOINED = "".join(ENV_SECRETS)


def _variants() -> str:
    """Every secret glued to words, upper- and lower-cased, base64-, URL- and JSON-encoded."""
    parts = []
    for s in ENV_SECRETS:
        parts += [
            f"glued{s}word",
            s.upper(),
            s.lower(),
            base64.b64encode(s.encode()).decode(),
            quote(s, safe=""),
            json.dumps({"k": s}),
        ]
    return " ".join(parts)


def _leaky_calls() -> list[ToolCall]:
    calls = []
    for i, s in enumerate(ENV_SECRETS):
        calls.append(
            ToolCall(
                id=f"call-{i}-{s}",
                name=f"tool_{s}",
                arguments={f"key_{s}": f"value:{s}", "nested": {s.upper(): [s, {"x": s}]}},
            )
        )
    calls.append(
        ToolCall(id="raw", name="lookup", raw_arguments=f'{{"q": "{_JOINED}"', parse_error=_JOINED)
    )
    return calls


async def echo_agent(request: AgentRequest) -> AgentResponse:
    """Tool calls full of secrets first; then text full of them, or an exception that is."""
    answered = any(m.role == "tool" for m in request.messages)
    if request.turn == 0 and not answered:
        return AgentResponse(
            message=Message.assistant(f"calling with {_JOINED}", _leaky_calls()),
            model_calls=[
                ModelCall(provider=f"p-{_JOINED}", model=f"m-{_JOINED}", response_id=_JOINED)
            ],
            issues=[OutputIssue(error_class=ErrorClass.unknown, message=f"issue {_JOINED}")],
        )
    scenario = request.scenario.id if request.scenario else ""
    # A fixed third of the scenarios answer, a third raise (an agent_error event) and a third
    # raise InfraError (whose text becomes the termination detail), so every run exercises
    # all three channels.
    which = zlib.crc32(scenario.encode()) % 3
    if which == 1 or request.turn > 0:
        raise RuntimeError(f"agent blew up holding {_JOINED} and {_variants()}")
    if which == 2:
        raise InfraError(f"provider down for {_JOINED}; {_variants()}")
    return AgentResponse(message=Message.assistant(f"my secrets: {_variants()}"))
