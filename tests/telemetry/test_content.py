"""Content (messages, arguments, results) is opt-in, and scrubbed like the store when given."""

from __future__ import annotations

import json
from typing import Any

from sessionproof.records import (
    EventKind,
    Message,
    Session,
    TerminationReason,
    ToolCall,
    ToolResult,
)
from sessionproof.records._internal import make_event
from sessionproof.telemetry import session_spans
from sessionproof.telemetry._internal import otlp_json

SECRET = "sk-" + "q" * 32


def _session() -> Session:
    call = ToolCall(id="c1", name="login", arguments={"token": SECRET, "user": "ann"})
    payloads: list[tuple[EventKind, Any]] = [
        (EventKind.user_message, Message.user(f"my key is {SECRET}")),
        (EventKind.assistant_message, Message.assistant("on it", [call])),
        (EventKind.tool_call, call),
        (EventKind.tool_result, ToolResult(call_id="c1", name="login", output=f"ok {SECRET}")),
    ]
    events = [
        make_event(
            k,
            p,
            run_id="r1",
            session_id="s1",
            seq=i,
            turn=0,
            step=0,
            t_wall=100.0 + i,
            t_mono=float(i),
        )
        for i, (k, p) in enumerate(payloads)
    ]
    return Session(
        run_id="r1",
        session_id="s1",
        scenario_id="sc",
        trial=0,
        events=events,
        termination=TerminationReason.user_stop,
    )


def test_without_the_flag_no_content_leaves() -> None:
    text = json.dumps(otlp_json(session_spans(_session())))
    assert "my key is" not in text and "ann" not in text and "ok " not in text
    assert "gen_ai.tool.call.id" in text


def test_with_the_flag_content_is_there_and_scrubbed() -> None:
    text = json.dumps(otlp_json(session_spans(_session(), content=True)))
    assert "my key is" in text and "ann" in text and "on it" in text
    assert SECRET not in text
