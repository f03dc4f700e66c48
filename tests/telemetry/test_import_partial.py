"""More partial and odd traces: a session spread over one trace per turn, the collector's file
exporter (one request per line), attribute values and spans we do not know, a span without
times, and a file with no spans."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sessionproof.errors import InputFileError
from sessionproof.importers import import_file
from sessionproof.records import ToolCallEvent
from sessionproof.runs import import_traces

from .test_import_malformed import T1, T2, _attr, _file, _read, _session, _span


def _request(spans: list[dict[str, Any]]) -> dict[str, Any]:
    return {"resourceSpans": [{"resource": {}, "scopeSpans": [{"spans": spans}]}]}


def test_one_trace_per_turn_is_one_session_in_time_order(tmp_path: Path) -> None:
    # Production tracers often start a trace per user turn and tie them by conversation id.
    first = _session(T1, "conv-1", 100)
    second = _session(T2, "conv-1", 200)
    second[2]["attributes"][2] = _attr("gen_ai.tool.call.id", "conv-1-c3")
    second[3]["attributes"][2] = _attr("gen_ai.tool.call.id", "conv-1-c4")
    sessions, fatal, warnings = _read(_file(tmp_path, second + first))
    assert fatal == [] and warnings == []
    (s,) = sessions
    ids = [e.payload.id for e in s.events_of(ToolCallEvent)]
    assert ids == ["conv-1-c1", "conv-1-c2", "conv-1-c3", "conv-1-c4"]
    assert s.usage.input_tokens == 24  # both turns' chat spans


def test_the_collectors_file_exporter_one_request_per_line(tmp_path: Path) -> None:
    a, b = _session(T1, "conv-1", 100), _session(T2, "conv-2", 100)
    path = tmp_path / "traces.jsonl"
    path.write_text(json.dumps(_request(a)) + "\n" + json.dumps(_request(b)) + "\n")
    sessions, fatal, _ = _read(path, "otlp-json")
    assert fatal == [] and sorted(s.session_id for s in sessions) == ["conv-1", "conv-2"]
    path.write_text(json.dumps(_request(a)) + "\n" + json.dumps(_request(b))[:50] + "\n")
    with pytest.raises(InputFileError, match="line 2"):
        import_file(path, "otlp-json", run_id="r")


def test_unknown_attributes_values_and_spans_are_ignored(tmp_path: Path) -> None:
    spans = _session(T1, "conv-1", 100)
    known, _, _ = _read(_file(tmp_path, spans, "known.json"))
    odd = json.loads(json.dumps(spans))
    odd[1]["attributes"] += [
        {"key": "vendor.map", "value": {"kvlistValue": {"values": [_attr("a", "b")]}}},
        {"key": "vendor.bytes", "value": {"bytesValue": "AAEC"}},
        {"key": "vendor.empty", "value": {}},
        {"key": 7, "value": {"stringValue": "a key that is no string"}},
        {"value": {"stringValue": "no key at all"}},
    ]
    odd[2]["kind"] = 3
    odd[2]["flags"] = 257
    odd[2]["links"] = [{"traceId": T2, "spanId": "c" * 16}]
    odd.append(_span(T1, "9" * 16, T1[:16], "SELECT orders", 102, {"db.system": "postgresql"}))
    sessions, fatal, warnings = _read(_file(tmp_path, odd, "odd.json"))
    assert fatal == [] and warnings == []
    assert [e.model_dump() for e in sessions[0].events] == [e.model_dump() for e in known[0].events]


def test_a_span_without_times_or_name_is_kept(tmp_path: Path) -> None:
    spans = _session(T1, "conv-1", 100)
    for key in ("startTimeUnixNano", "endTimeUnixNano", "name"):
        spans[2].pop(key)
    spans[3]["startTimeUnixNano"] = "not a number"
    sessions, fatal, _ = _read(_file(tmp_path, spans))
    assert fatal == []
    assert sorted(e.payload.name for e in sessions[0].events_of(ToolCallEvent)) == [
        "cancel",
        "find_order",
    ]


def test_no_spans_and_not_traces(tmp_path: Path) -> None:
    empty = tmp_path / "empty.json"
    empty.write_text(json.dumps({"resourceSpans": []}))
    assert import_file(empty, "auto", run_id="r").sessions == []
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"spans": []}))
    with pytest.raises(InputFileError, match="resourceSpans"):
        import_file(other, "otlp-json", run_id="r")


@pytest.mark.parametrize("fmt", ["otlp-json", "otlp-proto"])
def test_a_missing_or_empty_trace_file_is_one_clear_error(tmp_path: Path, fmt: str) -> None:
    with pytest.raises(InputFileError, match="cannot read"):
        import_traces(tmp_path / "nowhere.json", fmt=fmt, store=None)
    empty = tmp_path / "empty.json"
    empty.write_bytes(b"  \n")
    with pytest.raises(InputFileError, match="empty"):
        import_traces(empty, fmt=fmt, store=None)
