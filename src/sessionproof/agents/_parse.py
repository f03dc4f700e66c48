"""Turning a model's raw reply into records: argument parsing, size limits, reply issues.

Shared by every provider adapter so that a broken reply is classified the same way whatever
the provider: nothing here raises on bad model output.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..records import ErrorClass, Message, ToolCall
from ..records._internal import MAX_ARGUMENT_CHARS, parse_arguments
from ._protocol import AgentResponse, OutputIssue

_SAFE_ID = re.compile(r"[^A-Za-z0-9_-]")

MAX_REPLY_CHARS = 100_000
"""Reply text beyond this is cut and classified `truncated_output`: a 5 MB reply would drown the
next request's context and the trace store."""


def make_tool_call(call_id: str, name: str, raw: str | dict[str, Any] | None) -> ToolCall:
    """A `ToolCall` from raw provider data; unparsable arguments keep their text and reason."""
    arguments, error = parse_arguments(raw)
    raw_text: str | None
    if isinstance(raw, str):
        raw_text = raw if len(raw) <= MAX_ARGUMENT_CHARS else raw[:MAX_ARGUMENT_CHARS]
    elif raw is None or isinstance(raw, dict):
        raw_text = None
    else:
        raw_text = repr(raw)[:MAX_ARGUMENT_CHARS]
    return ToolCall(
        id=call_id,
        name=name,
        arguments=arguments,
        raw_arguments=raw_text,
        parse_error=error,
    )


def safe_call_id(call_id: str) -> str:
    """A call id made only of letters, digits, `_` and `-` (what strict providers accept)."""
    return _SAFE_ID.sub("_", call_id) or "call"


def history_arguments(call: ToolCall) -> str:
    """The JSON-object text to send back for a past call's arguments.

    A call whose arguments never parsed is sent back as `{}`: llama.cpp and others reject the
    whole request when a past call's arguments are not JSON, which would turn the model's own
    mistake into an infrastructure failure. The tool result still carries the parse error.
    """
    if call.arguments is None:
        return "{}"
    return json.dumps(call.arguments, ensure_ascii=False)


class CallIds:
    """Fills in missing or repeated call ids so every call in a session has its own."""

    def __init__(self, prefix: str = "call") -> None:
        self._prefix = prefix
        self._count = 0

    def next(self, step: int) -> str:
        """A fresh id, deterministic given the order of requests."""
        self._count += 1
        return f"{self._prefix}_{step}_{self._count}"

    def fix(self, proposed: str | None, step: int, seen: set[str]) -> str:
        """`proposed` when it is usable and new within this reply, else a fresh id."""
        if proposed and proposed not in seen:
            seen.add(proposed)
            return proposed
        fresh = self.next(step)
        seen.add(fresh)
        return fresh


def finish_reply(
    text: str | None,
    calls: list[ToolCall],
    *,
    finish_reason: str | None,
    issues: list[OutputIssue] | None = None,
) -> tuple[Message, list[OutputIssue]]:
    """Build the assistant message and classify what is wrong with the reply, if anything.

    Cuts oversized text (`truncated_output`), flags a length stop (`truncated_output`), a
    provider's content filter (`policy_refusal`), unparsable arguments (`malformed_output`)
    and an empty reply (`empty_result`).
    """
    found = list(issues or [])
    if text is not None and len(text) > MAX_REPLY_CHARS:
        size = len(text)
        text = text[:MAX_REPLY_CHARS] + f"\n[truncated: {size} characters]"
        found.append(
            OutputIssue(
                error_class=ErrorClass.truncated_output,
                message=f"reply of {size} characters cut to {MAX_REPLY_CHARS}",
            )
        )
    if finish_reason in ("length", "max_tokens"):
        found.append(
            OutputIssue(
                error_class=ErrorClass.truncated_output,
                message=f"the model hit its output token limit (finish reason {finish_reason!r})",
            )
        )
    elif finish_reason in ("content_filter", "refusal"):
        found.append(
            OutputIssue(
                error_class=ErrorClass.policy_refusal,
                message=f"the provider stopped the reply (finish reason {finish_reason!r})",
            )
        )
    for call in calls:
        if call.parse_error is not None:
            found.append(
                OutputIssue(
                    error_class=ErrorClass.malformed_output,
                    message=f"arguments of call {call.id} to {call.name!r}: {call.parse_error}",
                )
            )
    if text is not None and not text.strip():
        text = None
    if text is None and not calls:
        found.append(
            OutputIssue(
                error_class=ErrorClass.empty_result, message="the model replied with nothing"
            )
        )
    return Message.assistant(text, calls), found


def unusable_reply(error_class: ErrorClass, message: str) -> AgentResponse:
    """A response carrying no message content, only the classified reason it has none."""
    return AgentResponse(
        message=Message.assistant(None),
        issues=[OutputIssue(error_class=error_class, message=message)],
    )
