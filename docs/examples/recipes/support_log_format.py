"""Recipe: a transcript format, so `sessionproof import tickets.jsonl` reads your logs.

A format is a `TranscriptFormat`: a reader that gets the file's bytes and returns an
`ImportResult` (sessions, and every problem met), and a sniff that tells your files from
others', so `import` and `score` recognise them with no `--format`. `SessionBuilder` turns
a conversation into numbered events; a broken record becomes a `RecordError` naming its
index and field, and the rest of the file is still read.

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
    Sample,
    SessionBuilder,
    TranscriptFormat,
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


def looks_like_support_log(sample: Sample) -> bool:
    """True when the file's first JSON line is a ticket with turns."""
    return any(isinstance(r, dict) and "ticket" in r and "turns" in r for r in sample.records[:1])


# What the `sessionproof.formats` entry point names. The reader is a "module:function",
# imported only when a file of this format is read; the sniff runs on every auto-detection.
SUPPORT_LOG = TranscriptFormat(
    "support_log_format:read_support_log",
    sniff=looks_like_support_log,
    shape='a support log ({"ticket": ..., "turns": [...]} per line)',
)

# From Python without installing a package: register it at import time instead.
register_format("support-log", "support_log_format:read_support_log", sniff=looks_like_support_log)
