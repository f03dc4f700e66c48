"""OpenAI chat-completions messages → events (shared by the OpenAI-log and tau-bench readers).

Assistant tool calls carry their arguments as JSON text; a role "tool" message answers a call
by `tool_call_id`. The legacy single `function_call` / role "function" pair is read too. A
message's content may be text or a list of parts; the text parts are joined.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import ValidationError

from ._common import (
    ForeignRecord,
    RecordError,
    SessionBuilder,
    call_problems,
    first_problem,
    parse_time,
    repeated_call_ids,
    tool_call,
    unanswered_result,
)


class _Function(ForeignRecord):
    name: str
    arguments: Any = None


class _Call(ForeignRecord):
    id: str
    function: _Function


class _Message(ForeignRecord):
    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: str | list[Any] | None = None
    tool_calls: list[_Call] | None = None
    function_call: _Function | None = None
    tool_call_id: str | None = None
    name: str | None = None
    timestamp: str | float | None = None


def _text(content: str | list[Any] | None) -> str | None:
    if content is None or isinstance(content, str):
        return content
    parts = [
        p.get("text", "")
        for p in content
        if isinstance(p, dict) and p.get("type") in ("text", "output_text", "input_text")
    ]
    return "".join(parts) if parts else None


def read_openai_messages(
    builder: SessionBuilder,
    messages: Sequence[object],
    *,
    index: int,
    record_id: str | None,
    tools: frozenset[str] | None,
    errors: list[RecordError],
    prefix: str = "messages",
) -> bool:
    """Feed OpenAI-format messages to `builder`; False when the record must be skipped."""
    legacy_ids: dict[str, str] = {}
    for j, item in enumerate(messages):
        try:
            msg = _Message.model_validate(item)
        except ValidationError as exc:
            where, text = first_problem(exc, f"{prefix}.{j}")
            errors.append(RecordError(index=index, field=where, message=text, record_id=record_id))
            return False
        at = parse_time(msg.timestamp)
        if msg.role in ("system", "developer"):
            continue
        if msg.role == "user":
            builder.user(_text(msg.content) or "", at)
        elif msg.role == "assistant":
            calls = [
                tool_call(c.id, c.function.name, c.function.arguments) for c in msg.tool_calls or []
            ]
            if msg.function_call is not None:
                legacy = tool_call(
                    f"function-{j}", msg.function_call.name, msg.function_call.arguments
                )
                legacy_ids[legacy.name] = legacy.id
                calls.append(legacy)
            for k, call in enumerate(calls):
                where = f"{prefix}.{j}.tool_calls.{k}.function"
                errors += call_problems(
                    call,
                    where=where,
                    arguments_field="arguments",
                    index=index,
                    record_id=record_id,
                    tools=tools,
                )
            errors += repeated_call_ids(
                builder,
                calls,
                fields=[f"{prefix}.{j}.tool_calls.{k}" for k in range(len(calls))],
                index=index,
                record_id=record_id,
            )
            builder.assistant(_text(msg.content), calls, at)
        else:
            call_id = msg.tool_call_id
            if msg.role == "function" and call_id is None and msg.name:
                call_id = legacy_ids.pop(msg.name, None)
            if call_id is None:
                errors.append(
                    RecordError(
                        index=index,
                        field=f"{prefix}.{j}.tool_call_id",
                        message="tool message without the id of its call",
                        record_id=record_id,
                    )
                )
                return False
            if builder.tool_result(call_id, _text(msg.content) or "", None, at) is None:
                field = "tool_call_id" if msg.tool_call_id is not None else "name"
                errors.append(
                    unanswered_result(
                        call_id, field=f"{prefix}.{j}.{field}", index=index, record_id=record_id
                    )
                )
    return True
