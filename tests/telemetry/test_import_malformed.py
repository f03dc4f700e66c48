"""Importing OTLP traces that are not our own, or broken: every usable span is kept, every
problem named, and a file that cannot be read at all is one clear error."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sessionproof.errors import InputFileError
from sessionproof.importers import import_file
from sessionproof.records import ErrorClass, Session, ToolCallEvent, ToolResultEvent
from sessionproof.runs import RunReport
from sessionproof.telemetry import run_spans
from sessionproof.telemetry._internal import otlp_proto

T1, T2 = "a" * 32, "b" * 32


def _attr(key: str, value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"key": key, "value": {"boolValue": value}}
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    return {"key": key, "value": {"stringValue": value}}


def _span(
    trace: str, span: str, parent: str, name: str, start: int, attrs: dict[str, Any], **extra: Any
) -> dict[str, Any]:
    return {
        "traceId": trace,
        "spanId": span,
        "parentSpanId": parent,
        "name": name,
        "startTimeUnixNano": str(start * 10**9),
        "endTimeUnixNano": str((start + 1) * 10**9),
        "attributes": [_attr(k, v) for k, v in attrs.items()],
        **extra,
    }


def _session(trace: str, conv: str, base: int) -> list[dict[str, Any]]:
    """A foreign agent session: a root, a chat, a good tool call and a failed one."""
    root = trace[:16]
    return [
        _span(
            trace,
            root,
            "",
            "invoke_agent shop",
            base,
            {"gen_ai.operation.name": "invoke_agent", "gen_ai.conversation.id": conv},
        ),
        _span(
            trace,
            "1" + trace[1:16],
            root,
            "chat gpt-x",
            base + 1,
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.provider.name": "openai",
                "gen_ai.request.model": "gpt-x",
                "gen_ai.usage.input_tokens": 12,
            },
        ),
        _span(
            trace,
            "2" + trace[1:16],
            root,
            "execute_tool find_order",
            base + 2,
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "find_order",
                "gen_ai.tool.call.id": f"{conv}-c1",
                "vendor.thing": "ignored",
            },
        ),
        _span(
            trace,
            "3" + trace[1:16],
            root,
            "execute_tool cancel",
            base + 3,
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "cancel",
                "gen_ai.tool.call.id": f"{conv}-c2",
                "error.type": "RateLimitError",
            },
            status={"code": 2, "message": "429 Too Many Requests"},
        ),
    ]


def _file(tmp_path: Path, spans: list[dict[str, Any]], name: str = "t.json") -> Path:
    doc = {
        "resourceSpans": [
            {
                "resource": {"attributes": []},
                "scopeSpans": [{"scope": {"name": "x"}, "spans": spans}],
            }
        ]
    }
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def _read(path: Path, fmt: str = "auto") -> tuple[list[Session], list[str], list[str]]:
    result = import_file(path, fmt, run_id="r-test")
    fatal = [str(e) for e in result.errors if e.fatal]
    warnings = [str(e) for e in result.errors if not e.fatal]
    return [i.session for i in result.sessions], fatal, warnings


def _calls(session: Session) -> list[tuple[str, str]]:
    return [(e.payload.name, e.payload.id) for e in session.events_of(ToolCallEvent)]


def test_a_foreign_genai_trace_becomes_a_session_with_classified_errors(tmp_path: Path) -> None:
    sessions, fatal, warnings = _read(_file(tmp_path, _session(T1, "conv-1", 100)))
    assert fatal == [] and warnings == []
    (s,) = sessions
    assert s.session_id == "conv-1"
    assert _calls(s) == [("find_order", "conv-1-c1"), ("cancel", "conv-1-c2")]
    results = {e.payload.name: e.payload for e in s.events_of(ToolResultEvent)}
    assert results["find_order"].ok
    assert results["cancel"].error_class is ErrorClass.rate_limited  # by the taxonomy
    assert s.model_calls()[0].model == "gpt-x" and s.usage.input_tokens == 12


def test_spans_out_of_order_read_the_same(tmp_path: Path) -> None:
    spans = _session(T1, "conv-1", 100)
    ordered, _, _ = _read(_file(tmp_path, spans, "a.json"))
    shuffled, _, _ = _read(_file(tmp_path, spans[::-1], "b.json"))
    assert [e.model_dump() for e in shuffled[0].events] == [
        e.model_dump() for e in ordered[0].events
    ]


def test_two_sessions_interleaved_in_one_file_come_apart(tmp_path: Path) -> None:
    a, b = _session(T1, "conv-1", 100), _session(T2, "conv-2", 100)
    mixed = [span for pair in zip(a, b, strict=True) for span in pair]
    sessions, fatal, _ = _read(_file(tmp_path, mixed))
    assert fatal == []
    by_id = {s.session_id: s for s in sessions}
    assert sorted(by_id) == ["conv-1", "conv-2"]
    assert [c for _, c in _calls(by_id["conv-2"])] == ["conv-2-c1", "conv-2-c2"]


def test_base64_ids_read_like_hex(tmp_path: Path) -> None:
    spans = _session(T1, "conv-1", 100)
    b64 = json.loads(json.dumps(spans))
    for span in b64:
        for key in ("traceId", "spanId", "parentSpanId"):
            if span[key]:
                span[key] = base64.b64encode(bytes.fromhex(span[key])).decode()
    hexed, _, w1 = _read(_file(tmp_path, spans, "a.json"))
    based, _, w2 = _read(_file(tmp_path, b64, "b.json"))
    assert w1 == w2 == []  # parents resolved in both encodings
    assert based[0].model_dump() == hexed[0].model_dump()


def test_a_missing_parent_is_a_warning_and_the_span_is_kept(tmp_path: Path) -> None:
    spans = _session(T1, "conv-1", 100)
    spans[2]["parentSpanId"] = "f" * 16
    sessions, fatal, warnings = _read(_file(tmp_path, spans))
    assert fatal == []
    assert len(warnings) == 1 and "parentSpanId" in warnings[0] and "f" * 16 in warnings[0]
    assert [n for n, _ in _calls(sessions[0])] == ["find_order", "cancel"]


def test_a_span_without_a_usable_id_is_skipped_by_name(tmp_path: Path) -> None:
    spans = _session(T1, "conv-1", 100)
    spans[3]["spanId"] = "not-an-id"
    sessions, fatal, _ = _read(_file(tmp_path, spans))
    assert len(fatal) == 1 and "#3" in fatal[0] and "spanId" in fatal[0]
    assert [n for n, _ in _calls(sessions[0])] == ["find_order"]


def test_openinference_attributes_are_read(tmp_path: Path) -> None:
    spans = [
        _span(
            T1,
            "1" * 16,
            "",
            "agent",
            100,
            {"openinference.span.kind": "AGENT", "session.id": "oi-1"},
        ),
        _span(
            T1,
            "2" * 16,
            "1" * 16,
            "lookup",
            101,
            {"openinference.span.kind": "TOOL", "tool.name": "lookup", "input.value": '{"q": 1}'},
        ),
    ]
    sessions, fatal, _ = _read(_file(tmp_path, spans))
    assert fatal == [] and sessions[0].session_id == "oi-1"
    assert sessions[0].tool_calls()[0].name == "lookup"
    assert sessions[0].tool_calls()[0].arguments == {"q": 1}


@pytest.mark.slow
def test_a_truncated_protobuf_is_one_clear_error(
    faulty_run: tuple[Path, RunReport], tmp_path: Path
) -> None:
    store, report = faulty_run
    _, spans = run_spans(report.run_id, store=store)
    data = otlp_proto(spans)
    path = tmp_path / "t.pb"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputFileError, match="not an OTLP protobuf"):
        import_file(path, "otlp-proto", run_id="r-test")
    cli = Path(sys.executable).with_name("sessionproof")
    done = subprocess.run(
        [str(cli), "import", str(path), "--format", "otlp-proto", "--store", str(tmp_path / "s")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert "not an OTLP protobuf" in done.stderr and "Traceback" not in done.stderr


def test_a_cut_json_file_is_one_clear_error(tmp_path: Path) -> None:
    path = _file(tmp_path, _session(T1, "conv-1", 100))
    path.write_text(path.read_text()[:200])
    with pytest.raises(InputFileError, match="OTLP-JSON"):
        import_file(path, "otlp-json", run_id="r-test")
