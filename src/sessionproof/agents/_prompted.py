"""Prompted tool calling: tools described in the system prompt, the reply constrained to JSON.

For models and servers without native tool calling. The reply is one JSON object, either
`{"type": "tool_call", "name": ..., "arguments": {...}}` or `{"type": "message", "content": ...}`,
enforced by `response_format` (a JSON-Schema grammar on llama.cpp), so a well-behaved server
always returns something that parses; when it does not, the reply is classified, never fatal.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..records import ErrorClass, Message, ToolCall, ToolSpec
from ._parse import CallIds, history_arguments, make_tool_call
from ._protocol import OutputIssue

MAX_MESSAGE_CHARS = 4000
"""Longest `content` the reply grammar allows, so a small model cannot ramble to the token cap."""

_FORMAT = """You can call tools. Every reply must be exactly one JSON object, in one of two forms:
- to call a tool: {"type": "tool_call", "name": "<tool name>", "arguments": {<arguments>}}
- to write to the user: {"type": "message", "content": "<your message>"}
Call a tool whenever you need a fact or must change something; write a message only to ask the
user something or to tell them the result. One tool per reply. Tool results come back in
messages starting with "Tool result".

Tools:"""


def _inlinable(schema: dict[str, Any]) -> bool:
    # A schema with its own $defs cannot be nested inside the reply schema without rewriting
    # its $refs; such tools get a generic object for arguments instead.
    text = json.dumps(schema)
    return "$ref" not in text and "$defs" not in text and "definitions" not in text


def reply_schema(
    tools: list[ToolSpec],
    *,
    require_tool: bool = False,
    max_message_chars: int = MAX_MESSAGE_CHARS,
) -> dict[str, Any]:
    """JSON Schema of one reply: a message, or a call to one of `tools` with its arguments.

    Each tool whose parameter schema is self-contained gets its own branch, so the grammar
    also constrains the arguments; the others share one branch (name enum, any object).
    """
    branches: list[dict[str, Any]] = []
    if not require_tool or not tools:
        branches.append(
            {
                "type": "object",
                "properties": {
                    "type": {"const": "message"},
                    "content": {"type": "string", "maxLength": max_message_chars},
                },
                "required": ["type", "content"],
                "additionalProperties": False,
            }
        )
    loose: list[str] = []
    for spec in tools:
        if not _inlinable(spec.parameters):
            loose.append(spec.name)
            continue
        branches.append(_call_branch({"const": spec.name}, spec.parameters))
    if loose:
        branches.append(_call_branch({"enum": loose}, {"type": "object"}))
    return branches[0] if len(branches) == 1 else {"anyOf": branches}


def _call_branch(name: dict[str, Any], arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"type": {"const": "tool_call"}, "name": name, "arguments": arguments},
        "required": ["type", "name", "arguments"],
        "additionalProperties": False,
    }


def response_format(
    tools: list[ToolSpec],
    *,
    require_tool: bool = False,
    max_message_chars: int = MAX_MESSAGE_CHARS,
) -> dict[str, Any]:
    """The chat-completions `response_format` value constraining the reply to `reply_schema`."""
    schema = reply_schema(tools, require_tool=require_tool, max_message_chars=max_message_chars)
    return {"type": "json_schema", "json_schema": {"name": "reply", "schema": schema}}


def message_chars_for(max_tokens: int | None) -> int:
    """A `content` length cap that leaves the JSON room to close within `max_tokens`.

    English prose runs near four characters a token, but the facts a message must carry
    (order numbers, tracking codes, amounts) run near one or two: SmolLM2 reads 192
    characters of such a sentence as 111 tokens. Three characters per two tokens keeps
    such a message, with its JSON around it, inside the token cap.
    """
    if max_tokens is None:
        return MAX_MESSAGE_CHARS
    return max(32, min(MAX_MESSAGE_CHARS, max_tokens * 3 // 2))


def _type_text(schema: dict[str, Any]) -> str:
    if "enum" in schema:
        return " | ".join(json.dumps(v) for v in schema["enum"])
    options = schema.get("anyOf") or schema.get("oneOf")
    if options:
        return " | ".join(_type_text(o) for o in options if o.get("type") != "null") or "any"
    kind = schema.get("type", "any")
    if kind == "array":
        return f"list of {_type_text(schema.get('items') or {})}"
    return str(kind) if not isinstance(kind, list) else " | ".join(map(str, kind))


def tool_text(spec: ToolSpec) -> str:
    """One tool as a compact signature with its parameters described.

    Small local models pay for every prompt token on every step (no prompt cache in
    reproducible runs), so the prose form is about half the size of the raw JSON Schema; the
    reply grammar still enforces the exact schema.
    """
    props: dict[str, Any] = spec.parameters.get("properties", {})
    required = set(spec.parameters.get("required", []))
    sig = ", ".join(
        f"{name}{'' if name in required else '?'}: {_type_text(schema)}"
        for name, schema in props.items()
    )
    summary = spec.description.strip().split("\n\n")[0].replace("\n", " ")
    lines = [f"- {spec.name}({sig}){' [changes data]' if spec.write else ''}: {summary}"]
    for name, schema in props.items():
        if schema.get("description"):
            lines.append(f"    {name}: {' '.join(str(schema['description']).split())}")
    return "\n".join(lines)


def system_text(base: str | None, tools: list[ToolSpec]) -> str:
    """The system prompt: the conversation's own system text, then the tools and the format."""
    tool_part = "\n".join([_FORMAT, *(tool_text(spec) for spec in tools)])
    return f"{base.strip()}\n\n{tool_part}" if base and base.strip() else tool_part


def _reply_json(value: dict[str, Any]) -> str:
    return json.dumps(value, ensure_ascii=False)


def to_chat_messages(messages: list[Message], tools: list[ToolSpec]) -> list[dict[str, Any]]:
    """Chat-completions messages with only plain roles (system, user, assistant).

    Past assistant turns are rendered in the reply format, so the history shows the model
    the form it must answer in; tool results become user messages. Consecutive messages of
    one role are merged, because several chat templates reject two user turns in a row.
    """
    base = "\n\n".join(m.content or "" for m in messages if m.role == "system") or None
    out: list[dict[str, Any]] = [{"role": "system", "content": system_text(base, tools)}]
    for msg in messages:
        if msg.role == "system":
            continue
        if msg.role == "assistant":
            parts: list[str] = []
            if msg.content:
                parts.append(_reply_json({"type": "message", "content": msg.content}))
            for call in msg.tool_calls:
                args = json.loads(history_arguments(call))
                parts.append(
                    _reply_json({"type": "tool_call", "name": call.name, "arguments": args})
                )
            empty = _reply_json({"type": "message", "content": ""})
            _append(out, "assistant", "\n".join(parts) or empty)
        elif msg.role == "tool":
            label = f"Tool result ({msg.name or 'tool'}, call {msg.tool_call_id or '?'}):"
            _append(out, "user", f"{label}\n{msg.content or ''}")
        else:
            _append(out, "user", msg.content or "")
    return out


def _append(out: list[dict[str, Any]], role: str, text: str) -> None:
    if out and out[-1]["role"] == role and role != "system":
        out[-1]["content"] = f"{out[-1]['content']}\n\n{text}"
    else:
        out.append({"role": role, "content": text})


_PARTIAL_MESSAGE = re.compile(r'^\s*\{\s*"type"\s*:\s*"message"\s*,\s*"content"\s*:\s*"(.*)$', re.S)


def _salvage_message(text: str) -> str | None:
    """The text of a message reply whose JSON was cut off inside its `content` string."""
    match = _PARTIAL_MESSAGE.match(text)
    if match is None:
        return None
    body = match.group(1)
    # Drop characters from the end until the rest closes as a JSON string (a cut may fall
    # inside an escape sequence such as \u00e9).
    for cut in range(min(len(body), 8) + 1):
        try:
            value = json.loads(f'"{body[: len(body) - cut]}"')
        except json.JSONDecodeError:
            continue
        return str(value) or None
    return None


def parse_reply(
    text: str | None, *, ids: CallIds, step: int, truncated: bool = False
) -> tuple[str | None, list[ToolCall], list[OutputIssue]]:
    """Read a prompted reply back: `(text, calls, issues)`.

    Text that is not the expected JSON is kept as a plain message and classified
    `malformed_output`; a call to a name that is not a tool is kept as a call (the engine
    classifies unknown tools). When the reply was `truncated` (token cap), a message cut
    inside its text keeps the text so far, and the cut itself is left for the caller to
    classify as `truncated_output`.
    """
    if text is None or not text.strip():
        return None, [], []
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        if truncated:
            salvaged = _salvage_message(text)
            return (salvaged if salvaged is not None else text), [], []
        return text, [], [_malformed(f"reply is not JSON ({exc.msg} at position {exc.pos})")]
    if not isinstance(value, dict):
        return text, [], [_malformed("reply is JSON but not an object")]
    kind = value.get("type")
    if kind == "message" and isinstance(value.get("content"), str):
        return value["content"], [], []
    if kind == "tool_call" and isinstance(value.get("name"), str):
        raw = value.get("arguments")
        # A non-object value still becomes a call, with a parse error naming what it was.
        args = raw if raw is None or isinstance(raw, dict | str) else json.dumps(raw)
        call = make_tool_call(ids.next(step), value["name"], args)
        return None, [call], []
    return text, [], [_malformed("reply object is neither a tool_call nor a message")]


def _malformed(message: str) -> OutputIssue:
    return OutputIssue(error_class=ErrorClass.malformed_output, message=message)
