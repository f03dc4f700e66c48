"""The agent boundary: every reply is checked and rebuilt as plain JSON records before the
session uses it, so nothing an agent returns can crash the recorder, the store or a later
request, and nothing the agent keeps a reference to can change the trace afterwards."""

from __future__ import annotations

import math
from typing import Any

from pydantic import ValidationError
from pydantic_core import PydanticSerializationError

from ..agents import AgentResponse
from ..agents._internal import OutputIssue
from ..records import ErrorClass, Message, ToolCall

MAX_JSON_DEPTH = 64
"""Nesting allowed in tool-call arguments (DuckDB and orjson give up far deeper, and no tool
schema needs more)."""

_INT64 = 2**63
# Integers the store (orjson, DuckDB JSON) can hold: a 5,000-digit int from an agent is
# refused here rather than crashing the write of the finished session.


class MalformedReply(Exception):
    """The agent's reply is not a usable `AgentResponse` at all (wrong type, invalid fields)."""


class _NotJson(Exception):
    """A value inside tool-call arguments that plain JSON cannot hold; the message says where."""


def _type_name(value: Any) -> str:
    kind = type(value)
    module = kind.__module__
    return kind.__qualname__ if module == "builtins" else f"{module}.{kind.__qualname__}"


def _plain(value: Any, where: str, depth: int) -> Any:
    """`value` as a fresh plain-JSON value (dict, list, str, int, float, bool, None)."""
    if depth > MAX_JSON_DEPTH:
        # Also how a dict that contains itself ends: it is infinitely deep.
        start = where if len(where) <= 60 else where[:60] + "..."
        raise _NotJson(f"{start}: nested deeper than {MAX_JSON_DEPTH} levels")
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        if not -_INT64 <= value < _INT64:
            raise _NotJson(f"{where}: an integer beyond the 64-bit range")
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise _NotJson(f"{where}: {value!r} is not a JSON number")
        return float(value)
    if isinstance(value, str):
        return str(value)
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise _NotJson(f"{where}: a key of type {_type_name(key)}, not a string")
            out[str(key)] = _plain(item, f"{where}.{key}", depth + 1)
        return out
    if isinstance(value, list | tuple):
        return [_plain(item, f"{where}[{i}]", depth + 1) for i, item in enumerate(value)]
    raise _NotJson(f"{where}: {_type_name(value)} is not a JSON value")


def _checked_call(call: ToolCall) -> tuple[ToolCall, OutputIssue | None]:
    """The call with plain-JSON arguments, or kept unrunnable with the reason (its tool
    result then says so, like arguments a model sent as broken JSON text)."""
    if call.arguments is None:
        return call, None
    try:
        arguments = _plain(call.arguments, "arguments", 0)
    except _NotJson as exc:
        reason = f"arguments are not plain JSON: {exc}"
        broken = ToolCall(id=call.id, name=call.name, arguments=None, parse_error=reason)
        issue = OutputIssue(
            error_class=ErrorClass.malformed_output,
            message=f"call {call.id} to {call.name!r}: {reason}",
        )
        return broken, issue
    return call.model_copy(update={"arguments": arguments}), None


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return " ".join(text.split("\n", 2)[:2])[:300] if text else type(exc).__name__


def accept_reply(reply: object, fresh: bool = False) -> AgentResponse:
    """`reply` rebuilt from plain JSON: fresh records the agent holds no reference to.

    Tool calls whose arguments are not plain JSON (numpy values, bytes, objects, NaN, huge
    or too deeply nested values) are kept with `arguments=None` and a `parse_error`, and a
    `malformed_output` issue is added. Raises `MalformedReply` when the reply is not an
    `AgentResponse` whose fields are the records they claim to be (`model_construct`).

    `fresh`: the agent vouches that the reply is newly built, validated records
    (`replies_fresh`): only the tool-call arguments are checked, the dump and validation
    round trip (~4% of a provider run's CPU) is skipped.
    """
    if not isinstance(reply, AgentResponse):
        raise MalformedReply(f"the agent returned {_type_name(reply)}, expected an AgentResponse")
    issues: list[OutputIssue] = []
    msg = reply.message
    # Records built with `model_construct` may hold anything: only real ToolCalls are
    # checked one by one; anything else fails as a whole below.
    calls = msg.tool_calls if isinstance(msg, Message) else None
    if calls and isinstance(calls, list) and all(isinstance(c, ToolCall) for c in calls):
        checked = [_checked_call(c) for c in calls]
        issues = [issue for _, issue in checked if issue is not None]
        fixed = [c for c, _ in checked]
        reply = reply.model_copy(update={"message": msg.model_copy(update={"tool_calls": fixed})})
    if fresh and type(reply) is AgentResponse and type(msg) is Message:
        reply.issues.extend(issues)
        return reply
    try:
        # `warnings="error"`: a field holding something other than its declared record
        # (a dict where a ToolCall belongs) is refused instead of dumped as a guess.
        data = reply.model_dump(mode="json", warnings="error")
        rebuilt = AgentResponse.model_validate(data)
    except (PydanticSerializationError, ValidationError, ValueError, TypeError) as exc:
        raise MalformedReply(
            f"the agent's reply is not a valid AgentResponse: {_first_line(exc)}"
        ) from None
    rebuilt.issues.extend(issues)
    return rebuilt
