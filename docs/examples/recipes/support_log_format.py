"""Recipe: a transcript format, so `import_file(path, "support-log", ...)` reads your logs.

A format is a reader function registered under a name: it gets the file's bytes and returns
an `ImportResult` (sessions, and every problem met). `SessionBuilder` turns a conversation
into numbered events; a broken record becomes a `RecordError` naming its index and field,
and the rest of the file is still read.

The format here: JSON lines such as
{"ticket": "T1", "resolved": true, "turns": [{"customer": "..."},
 {"agent": "...", "calls": [{"tool": "get_loan", "args": {...}, "result": "..."}]}]}
"""

from __future__ import annotations

import json

from sessionproof.importers import (
    ImportedSession,
    ImportResult,
    RecordError,
    ReportedVerdict,
    SessionBuilder,
    register_format,
)
from sessionproof.records import TerminationReason, ToolCall


def _session(line: dict[str, object], run_id: str, index: int) -> ImportedSession:
    ticket = str(line["ticket"])
    builder = SessionBuilder(run_id, ticket)
    turns = line["turns"]
    assert isinstance(turns, list)
    for step, turn in enumerate(turns):
        if "customer" in turn:
            builder.user(str(turn["customer"]))
            continue
        calls = [
            ToolCall(id=f"{ticket}-{step}-{i}", name=c["tool"], arguments=c["args"])
            for i, c in enumerate(turn.get("calls", []))
        ]
        builder.assistant(turn.get("agent"), calls)
        for call, made in zip(calls, turn.get("calls", []), strict=True):
            builder.tool_result(call.id, str(made["result"]), failed=None)  # None: read the text
    session = builder.session(ticket, trial=0, termination=TerminationReason.agent_stop)
    reported = ReportedVerdict(success=bool(line["resolved"])) if "resolved" in line else None
    return ImportedSession(index=index, session=session, reported=reported)


def read_support_log(raw: bytes, *, source: str, run_id: str, domain: str | None) -> ImportResult:
    """Every line of `raw` as a session; a line that is not one becomes a RecordError."""
    result = ImportResult(format="support-log", source=source, domain=domain)
    for index, text in enumerate(raw.decode("utf-8").splitlines()):
        if not text.strip():
            continue
        try:
            result.sessions.append(_session(json.loads(text), run_id, index))
        except (ValueError, KeyError, TypeError, AssertionError) as exc:
            message = f"not a support-log record: {type(exc).__name__}: {exc}"
            result.errors.append(RecordError(index=index, field="", message=message))
    return result


# The reader is named by "module:function" and imported when a file of this format is read.
register_format("support-log", "support_log_format:read_support_log")
