"""The environment's action and observation: one agent decision in, what the agent sees out.

Both are JSON text (an object), documented in docs/gym.md:

- an **action** is `{"content": TEXT}` (a reply to the user), `{"tool_calls": [CALL, ...]}`
  (calls the harness runs, in order) or both; a CALL is `{"name": TOOL, "arguments": {...}}`
  with an optional `"id"` (one is made when it is left out). `arguments` may also be the JSON
  text a model sent: text that does not parse is kept as the agent's malformed output, as a
  model's would be. `SessionEnv.step` also takes an `AgentResponse` or an assistant
  `Message`, what a `python:` agent returns.
- an **observation** is `{"messages": [...], "tools": [...], "turn": N, "step": N}`: the
  conversation so far (the domain policy as the system message first) and the tools the
  agent may call now, as the engine builds them for any agent (`AgentRequest`), without the
  scenario (which only reference agents read: `info["request"]` carries the whole request).

An action of the wrong shape raises `InvalidAction` (a `ValueError`) and changes nothing:
the session still waits for its decision.
"""

from __future__ import annotations

import json
from typing import Any

from ..agents import AgentRequest, AgentResponse
from ..errors import SessionproofError
from ..records import Message, ToolCall

ACTION_KEYS = frozenset({"content", "tool_calls"})
"""The keys an action object may have."""
CALL_KEYS = frozenset({"id", "name", "arguments"})
"""The keys a tool call of an action may have."""
OBSERVATION_KEYS = ("messages", "tools", "turn", "step")
"""The keys of every observation object, in the order they are written."""


class InvalidAction(SessionproofError, ValueError):
    """An action `SessionEnv.step` cannot read: not an action object, or one of the wrong
    shape. The session is unchanged and still waits for a decision."""


def _fail(detail: str) -> InvalidAction:
    return InvalidAction(
        f"invalid action: {detail} (expected a JSON object with 'content' and/or "
        "'tool_calls', see docs/gym.md)"
    )


def _arguments(value: object, where: str) -> dict[str, Any]:
    """A call's `arguments` as keyword arguments for `ToolCall` (broken text is kept)."""
    if isinstance(value, dict):
        return {"arguments": value}
    if isinstance(value, str):
        try:
            parsed = json.loads(value) if value.strip() else {}
        except ValueError as exc:
            return {"arguments": None, "raw_arguments": value, "parse_error": str(exc)}
        if isinstance(parsed, dict):
            return {"arguments": parsed, "raw_arguments": value}
        reason = f"arguments are JSON {type(parsed).__name__}, not an object"
        return {"arguments": None, "raw_arguments": value, "parse_error": reason}
    raise _fail(f"{where}.arguments must be an object or JSON text, not {type(value).__name__}")


def _call(value: object, where: str, default_id: str) -> ToolCall:
    if not isinstance(value, dict):
        raise _fail(f"{where} must be an object, not {type(value).__name__}")
    extra = sorted(set(value) - CALL_KEYS)
    if extra:
        raise _fail(f"{where} has unknown key {extra[0]!r}")
    name = value.get("name")
    if not isinstance(name, str) or not name:
        raise _fail(f"{where}.name must be a non-empty string")
    call_id = value.get("id", default_id)
    if not isinstance(call_id, str) or not call_id:
        raise _fail(f"{where}.id must be a non-empty string")
    return ToolCall(id=call_id, name=name, **_arguments(value.get("arguments", {}), where))


def _from_object(data: object, id_prefix: str) -> Message:
    if not isinstance(data, dict):
        raise _fail(f"a JSON {type(data).__name__}, not an object")
    extra = sorted(set(data) - ACTION_KEYS)
    if extra:
        raise _fail(f"unknown key {extra[0]!r}")
    content = data.get("content")
    if content is not None and not isinstance(content, str):
        raise _fail(f"'content' must be a string or null, not {type(content).__name__}")
    raw_calls = data.get("tool_calls", [])
    if not isinstance(raw_calls, list):
        raise _fail(f"'tool_calls' must be a list, not {type(raw_calls).__name__}")
    if content is None and not raw_calls:
        raise _fail("neither 'content' nor any tool call")
    calls = [_call(c, f"tool_calls[{i}]", f"{id_prefix}-{i}") for i, c in enumerate(raw_calls)]
    ids = [c.id for c in calls]
    if len(set(ids)) != len(ids):
        raise _fail("two tool calls have the same id")
    return Message.assistant(content, calls)


def parse_action(action: object, id_prefix: str = "call") -> AgentResponse:
    """The agent decision `action` spells, as the engine takes it from any agent.

    `action`: JSON text of an action object, or an `AgentResponse`, or an assistant
    `Message`. Tool calls without an id get `{id_prefix}-{index}`. Raises `InvalidAction`
    for anything else, naming what is wrong.
    """
    if isinstance(action, AgentResponse):
        return action
    if isinstance(action, Message):
        if action.role != "assistant":
            raise _fail(f"a {action.role!r} message; the agent speaks as 'assistant'")
        return AgentResponse(message=action)
    if isinstance(action, bytes | bytearray):
        action = action.decode("utf-8", errors="replace")
    if not isinstance(action, str):
        raise _fail(f"a {type(action).__name__}")
    try:
        data = json.loads(action)
    except ValueError as exc:
        raise _fail(f"not JSON ({exc})") from None
    return AgentResponse(message=_from_object(data, id_prefix))


TOOL_KEYS = ("name", "description", "parameters")
"""What an observation shows of each tool: what the provider adapters send a model (not
whether it writes, which the harness alone reads)."""


def observation_of(request: AgentRequest) -> str:
    """The observation text of `request`: what a model sees of it, as ASCII JSON."""
    data = request.model_dump(mode="json", include={"messages", "turn", "step"})
    data["tools"] = [t.model_dump(mode="json", include=set(TOOL_KEYS)) for t in request.tools]
    return json.dumps({key: data[key] for key in OBSERVATION_KEYS}, ensure_ascii=True)


def is_observation(text: object) -> bool:
    """True when `text` is an observation: JSON text of an object with exactly the
    observation keys, its messages and tools lists, its turn and step integers."""
    if not isinstance(text, str):
        return False
    try:
        data = json.loads(text)
    except ValueError:
        return False
    return (
        isinstance(data, dict)
        and tuple(data) == OBSERVATION_KEYS
        and isinstance(data["messages"], list)
        and isinstance(data["tools"], list)
        and all(type(data[k]) is int for k in ("turn", "step"))
    )


def is_action(value: object) -> bool:
    """True when `parse_action` reads `value` as an action."""
    try:
        parse_action(value)
    except InvalidAction:
        return False
    return True
