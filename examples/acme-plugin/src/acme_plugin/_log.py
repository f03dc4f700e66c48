"""ACME's order log: a transcript format, read by `sessionproof import` and `score` with no flag.

One JSON object per line, written by ACME's own shop front:

    {"acme_log": 1, "task": "acme-two-widgets", "said": "Please order two...",
     "calls": [{"tool": "order_gadget", "args": {...}, "result": "..."}], "reply": "Done."}

The sniff tells these files from every other format by their `acme_log` key.
"""

from __future__ import annotations

import json
from typing import Any

from sessionproof.importers import (
    ImportedSession,
    ImportResult,
    RecordError,
    Sample,
    SessionBuilder,
    TranscriptFormat,
)
from sessionproof.records import TerminationReason, ToolCall


def _session(line: dict[str, Any], run_id: str, index: int) -> ImportedSession:
    task = str(line["task"])
    builder = SessionBuilder(run_id, f"{task}.line{index}")
    builder.user(str(line["said"]))
    made = list(line.get("calls", []))
    calls = [
        ToolCall(id=f"{task}-{i}", name=str(c["tool"]), arguments=dict(c["args"]))
        for i, c in enumerate(made)
    ]
    builder.assistant(None, calls)
    for call, record in zip(calls, made, strict=True):
        builder.tool_result(call.id, str(record["result"]), failed=None)
    builder.assistant(str(line.get("reply", "")), [])
    session = builder.session(task, trial=0, termination=TerminationReason.agent_stop)
    return ImportedSession(index=index, session=session)


def read_acme_log(raw: bytes, *, source: str, run_id: str, domain: str | None) -> ImportResult:
    """Each line of an ACME order log as a session; a broken line costs that line only."""
    result = ImportResult(format="acme-log", source=source, domain=domain)
    for index, text in enumerate(raw.decode("utf-8", errors="replace").splitlines()):
        if not text.strip():
            continue
        try:
            result.sessions.append(_session(json.loads(text), run_id, index))
        except (ValueError, KeyError, TypeError) as exc:
            message = f"not an ACME log line: {type(exc).__name__}: {exc}"
            result.errors.append(RecordError(index=index, field="", message=message))
    return result


def looks_like_acme_log(sample: Sample) -> bool:
    """True when the file's first record carries the `acme_log` marker."""
    return any(isinstance(r, dict) and "acme_log" in r for r in sample.records[:1])


ACME_LOG = TranscriptFormat(
    "acme_plugin._log:read_acme_log",
    sniff=looks_like_acme_log,
    shape='an ACME order log ({"acme_log": 1, "task": ..., "calls": [...]} per line)',
)
"""Entry point `sessionproof.formats: acme-log`."""
