"""Whether a session's content was recorded: a trace exported without message text, tool
arguments and results (OTLP without `--otel-content`) keeps only the calls' names, so what
compares arguments (call validity, single-call accuracy, survival) cannot be measured on it."""

from __future__ import annotations

from ..records import EventKind, Message, Session, ToolCall, ToolResult

WITHOUT_CONTENT = (
    "recorded without content (no message text, arguments or results: e.g. a trace exported "
    "without --otel-content): its calls' arguments cannot be compared"
)
"""Why such a session's call metrics are not measured."""


def recorded_without_content(session: Session) -> bool:
    """True when no message of `session` carries text and none of its tool calls carries
    arguments or a result: what a content-free trace imports as. A session with one word of
    user text, one argument or one result output is taken as recorded with its content."""
    calls = 0
    for event in session.events:
        payload = event.payload
        if event.kind in (EventKind.user_message, EventKind.assistant_message):
            if isinstance(payload, Message) and payload.content:
                return False
        elif isinstance(payload, ToolCall):
            calls += 1
            if payload.arguments or payload.raw_arguments:
                return False
        elif isinstance(payload, ToolResult) and payload.output:
            return False
    return calls > 0
