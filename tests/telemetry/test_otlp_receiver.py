"""Export to a real OTLP/HTTP receiver, its protobuf decoded with opentelemetry-proto."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status

from sessionproof.records import ToolResultEvent
from sessionproof.runs import RunReport, export_traces
from sessionproof.telemetry import run_spans

from .conftest import rich_session


class _Receiver(BaseHTTPRequestHandler):
    received: list[tuple[str, dict[str, str], bytes]]

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.received.append((self.path, {k.lower(): v for k, v in self.headers.items()}, body))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.end_headers()
        self.wfile.write(b"")

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def receiver() -> Iterator[tuple[str, list[tuple[str, dict[str, str], bytes]]]]:
    received: list[tuple[str, dict[str, str], bytes]] = []
    handler = type("Handler", (_Receiver,), {"received": received})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", received
    finally:
        server.shutdown()
        server.server_close()


def _value(v: AnyValue) -> Any:
    field = v.WhichOneof("value")
    if field == "array_value":
        return [_value(x) for x in v.array_value.values]
    return getattr(v, field) if field else None


def _attrs(items: Any) -> dict[str, Any]:
    return {kv.key: _value(kv.value) for kv in items}


def _spans(received: list[tuple[str, dict[str, str], bytes]]) -> list[Span]:
    spans: list[Span] = []
    for _, _, body in received:
        request = ExportTraceServiceRequest()
        request.ParseFromString(body)
        for rs in request.resource_spans:
            for ss in rs.scope_spans:
                spans.extend(ss.spans)
    return spans


@pytest.mark.slow
def test_a_faulty_session_reaches_the_receiver_with_genai_names_and_structure(
    faulty_run: tuple[Path, RunReport],
    receiver: tuple[str, list[tuple[str, dict[str, str], bytes]]],
) -> None:
    store, report = faulty_run
    url, received = receiver
    count = export_traces(report.run_id, store=store, endpoint=url, headers={"x-team": "qa"})
    assert received and all(path == "/v1/traces" for path, _, _ in received)
    assert all(h.get("x-team") == "qa" for _, h, _ in received)
    assert all(h["content-type"] == "application/x-protobuf" for _, h, _ in received)
    spans = _spans(received)
    assert len(spans) == count

    session = rich_session(report.sessions)
    roots = [
        s
        for s in spans
        if s.name.startswith("invoke_agent ")
        and _attrs(s.attributes).get("gen_ai.conversation.id") == session.session_id
    ]
    assert len(roots) == 1
    root = roots[0]
    assert root.name == "invoke_agent oracle" and root.parent_span_id == b""
    ra = _attrs(root.attributes)
    assert ra["gen_ai.operation.name"] == "invoke_agent"
    assert ra["sessionproof.scenario.id"] == session.scenario_id
    assert ra["sessionproof.trial"] == session.trial
    assert ra["sessionproof.arm"] == session.arm
    mine = [s for s in spans if s.trace_id == root.trace_id]
    by_id = {s.span_id: s for s in mine}

    turns = [s for s in mine if s.name == "sessionproof.user_turn"]
    assert turns and all(t.parent_span_id == root.span_id for t in turns)
    tools = [s for s in mine if s.name.startswith("execute_tool ")]
    assert len(tools) == len(session.events_of(ToolResultEvent))
    for tool in tools:
        a = _attrs(tool.attributes)
        assert by_id[tool.parent_span_id].name == "sessionproof.user_turn"
        assert tool.name == f"execute_tool {a['gen_ai.tool.name']}"
        assert a["gen_ai.operation.name"] == "execute_tool"
        assert a["gen_ai.tool.call.id"]
        # Content is opt-in: no arguments or results by default.
        assert "gen_ai.tool.call.arguments" not in a and "gen_ai.tool.call.result" not in a

    failed = {
        e.payload.call_id: e.payload.error_class
        for e in session.events_of(ToolResultEvent)
        if e.payload.error_class
    }
    for tool in tools:
        a = _attrs(tool.attributes)
        if a["gen_ai.tool.call.id"] in failed:
            assert tool.status.code == Status.STATUS_CODE_ERROR
            assert a["error.type"] == failed[a["gen_ai.tool.call.id"]].value
        else:
            assert tool.status.code == Status.STATUS_CODE_UNSET and "error.type" not in a

    tool_events = [(e.name, _attrs(e.attributes)) for t in tools for e in t.events]
    assert any(name == "sessionproof.fault_injected" for name, _ in tool_events)
    assert any(
        name == "sessionproof.guard_decision"
        and a["sessionproof.guard_decision.decision"] == "retry"
        for name, a in tool_events
    )
    verdicts = [_attrs(e.attributes) for e in root.events if e.name == "gen_ai.evaluation.result"]
    main = [v for v in verdicts if v["gen_ai.evaluation.name"] == "session_success"]
    assert session.outcome is not None and len(main) == 1
    assert main[0]["gen_ai.evaluation.score.label"] == ("pass" if session.success else "fail")
    assert main[0]["gen_ai.evaluation.score.value"] == session.outcome.reward

    chats = [s for s in mine if s.name.startswith("chat ")]
    for chat in chats:
        a = _attrs(chat.attributes)
        assert by_id[chat.parent_span_id].name == "sessionproof.user_turn"
        assert a["gen_ai.operation.name"] == "chat" and "gen_ai.usage.input_tokens" in a


def test_the_standard_otlp_variables_choose_the_endpoint(
    faulty_run: tuple[Path, RunReport],
    receiver: tuple[str, list[tuple[str, dict[str, str], bytes]]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store, report = faulty_run
    url, received = receiver
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", url)
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-env=yes")
    count = export_traces(report.run_id, store=store, use_env=True)
    assert count == len(_spans(received)) > 0
    assert all(h.get("x-env") == "yes" for _, h, _ in received)


@pytest.mark.slow
def test_a_live_run_sends_every_session_as_it_ends(
    receiver: tuple[str, list[tuple[str, dict[str, str], bytes]]], tmp_path: Path
) -> None:
    url, received = receiver
    cli = Path(sys.executable).with_name("sessionproof")
    done = subprocess.run(
        [
            str(cli),
            "run",
            "--suite",
            "demo",
            "--model",
            "oracle",
            "--limit",
            "3",
            "--json",
            "--store",
            str(tmp_path / "s.duckdb"),
            "--otlp-endpoint",
            url,
            "--otlp-header",
            "x-live=1",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    spans = _spans(received)
    roots = [s for s in spans if s.name.startswith("invoke_agent ")]
    assert len(roots) == 3
    assert all(h.get("x-live") == "1" for _, h, _ in received)
    run_id = json.loads(done.stdout)["run_id"]
    assert {_attrs(r.attributes)["sessionproof.run.id"] for r in roots} == {run_id}
    # The same spans a later export of the stored run makes.
    _, stored = run_spans(run_id, store=tmp_path / "s.duckdb")
    assert sorted(s.name for s in spans) == sorted(s.name for s in stored)
