"""Anthropic Messages content blocks → events.

An assistant message's `text` blocks are its reply and its `tool_use` blocks its calls (input
is an object); a user message's `tool_result` blocks answer calls by `tool_use_id` (with
`is_error`), its `text` blocks are what the user said. Thinking blocks are not part of the
conversation and are skipped; images and documents carry no call and are skipped too. Any other
block (a type we do not read, a misspelt `Tool_Use`, a missing type, a call block in a user
message) is skipped with a warning: it may be a call the score would otherwise lose in silence.
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

_READ = {"text": ("user", "assistant"), "tool_use": ("assistant",), "tool_result": ("user",)}
"""Block types read, and the roles whose messages may carry them."""
_QUIET = frozenset({"thinking", "redacted_thinking", "image", "document"})
"""Block types skipped without a word: no call and no reply text in them."""


class _Message(ForeignRecord):
    role: Literal["user", "assistant"]
    content: str | list[dict[str, Any]]
    timestamp: str | float | None = None


def _block_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(b.get("text", ""))
            for b in content
            if isinstance(b, dict) and b.get("type") == "text"
        )
    return ""


def _odd_block(kind: object, role: str) -> str | None:
    """What is wrong with a block of type `kind` in a `role` message (None: read or skip it)."""
    if not isinstance(kind, str):  # first: a dict or list here is not even hashable
        return "a content block without a text `type`"
    if kind in _QUIET:
        return None
    roles = _READ.get(kind)
    if roles is None:
        near = next((t for t in _READ if t == kind.lower()), None)
        hint = f" (did you mean {near!r}?)" if near else ""
        return f"unknown content block type {kind!r}{hint}"
    if role not in roles:
        return f"a {kind} block in a {role} message"
    return None


def read_anthropic_messages(
    builder: SessionBuilder,
    messages: Sequence[object],
    *,
    index: int,
    record_id: str | None,
    tools: frozenset[str] | None,
    errors: list[RecordError],
) -> bool:
    """Feed Anthropic-format messages to `builder`; False when the record must be skipped."""
    for j, item in enumerate(messages):
        try:
            msg = _Message.model_validate(item)
        except ValidationError as exc:
            where, text = first_problem(exc, f"messages.{j}")
            errors.append(RecordError(index=index, field=where, message=text, record_id=record_id))
            return False
        at = parse_time(msg.timestamp)
        blocks = (
            [{"type": "text", "text": msg.content}] if isinstance(msg.content, str) else msg.content
        )
        texts: list[str] = []
        calls = []
        call_fields: list[str] = []
        for k, block in enumerate(blocks):
            kind = block.get("type")
            where = f"messages.{j}.content.{k}"
            odd = _odd_block(kind, msg.role)
            if odd:
                errors.append(
                    RecordError(
                        index=index,
                        field=f"{where}.type",
                        message=f"{odd}; the block was skipped",
                        record_id=record_id,
                        fatal=False,
                    )
                )
                continue
            if kind == "text":
                texts.append(str(block.get("text", "")))
            elif kind == "tool_use" and msg.role == "assistant":
                if not isinstance(block.get("id"), str) or not isinstance(block.get("name"), str):
                    errors.append(
                        RecordError(
                            index=index,
                            field=f"{where}.id"
                            if not isinstance(block.get("id"), str)
                            else f"{where}.name",
                            message="a tool_use block needs a text id and name",
                            record_id=record_id,
                        )
                    )
                    return False
                call = tool_call(block["id"], block["name"], block.get("input"))
                errors += call_problems(
                    call,
                    where=where,
                    arguments_field="input",
                    index=index,
                    record_id=record_id,
                    tools=tools,
                )
                calls.append(call)
                call_fields.append(where)
            elif kind == "tool_result" and msg.role == "user":
                call_id = block.get("tool_use_id")
                if not isinstance(call_id, str):
                    errors.append(
                        RecordError(
                            index=index,
                            field=f"{where}.tool_use_id",
                            message="a tool_result block needs the id of its tool_use",
                            record_id=record_id,
                        )
                    )
                    return False
                failed = bool(block.get("is_error")) or None
                text = _block_text(block.get("content"))
                if builder.tool_result(call_id, text, failed, at) is None:
                    errors.append(
                        unanswered_result(
                            call_id,
                            field=f"{where}.tool_use_id",
                            index=index,
                            record_id=record_id,
                        )
                    )
        said = "".join(texts) or None
        if msg.role == "assistant":
            errors += repeated_call_ids(
                builder, calls, fields=call_fields, index=index, record_id=record_id
            )
            builder.assistant(said, calls, at)
        elif said is not None:
            builder.user(said, at)
    return True
