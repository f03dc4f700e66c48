"""Verdicts where teams look (issue 34): each session's verdict and criteria as notes on its
trace — Langfuse scores here, against a loopback server that checks the documented shape of
`POST /api/public/scores`; Phoenix annotations in tests/integration/test_phoenix.py."""

from __future__ import annotations

import base64
import json
import logging
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from sessionproof.errors import InfraError
from sessionproof.records import Session
from sessionproof.runs import RunConfig, export_traces, run
from sessionproof.store import Store
from sessionproof.telemetry import LiveExport
from sessionproof.telemetry._verdict_notes import (
    NOT_JUDGED,
    VERDICT,
    not_judged_reason,
    phoenix_annotations,
    verdict_notes,
)
from sessionproof.telemetry._verdict_send import VerdictTarget, verdict_target

AGENT = "python:tests.telemetry._verdict_agent:respond"
# Built from parts: no key-shaped literal in a tracked file (tests/security).
PUBLIC, SECRET = "pk-lf-test-0123456789", "sk" + "-lf-test-9876543210-secret"
# The fields of Langfuse's documented score body (CreateScoreRequest), and its data types.
SCORE_FIELDS = {
    "id",
    "traceId",
    "observationId",
    "sessionId",
    "datasetRunId",
    "name",
    "value",
    "dataType",
    "comment",
    "metadata",
    "configId",
    "environment",
}
DATA_TYPES = {"NUMERIC", "CATEGORICAL", "BOOLEAN"}


@pytest.fixture(scope="module")
def mixed_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, list[Session]]:
    """A demo run whose sessions pass, fail, and end in infra_error (not judged)."""
    store = tmp_path_factory.mktemp("verdicts") / "s.duckdb"
    report = run(RunConfig(suite="demo", model=AGENT, limit=9, store=store))
    with Store.open_for_reading(store) as db:
        sessions = db.load_sessions(report.run_id)
    assert {s.verdict for s in sessions} == {True, False, None}
    return store, report.run_id, sessions


def test_each_session_gets_its_verdict_and_unjudged_ones_no_pass_or_fail(
    mixed_run: tuple[Path, str, list[Session]],
) -> None:
    _, _, sessions = mixed_run
    for session in sessions:
        notes = verdict_notes(session)
        assert notes[0].name == VERDICT
        if session.verdict is None:
            assert [(n.label, n.score) for n in notes] == [(NOT_JUDGED, None)]
            assert notes[0].explanation == not_judged_reason(session)
            assert "the provider is down" in notes[0].explanation
            continue
        assert session.outcome is not None
        assert notes[0].label == ("pass" if session.verdict else "fail")
        assert notes[0].score == float(session.verdict)
        criteria = notes[1:]
        names = [f"criterion.{c.name}" for c in session.outcome.criteria]
        assert [n.name for n in criteria] == names
        assert [n.label for n in criteria] == [
            "pass" if c.passed else "fail" for c in session.outcome.criteria
        ]
        failed = [c.name for c in session.outcome.criteria if c.passed is False]
        if failed:
            assert notes[0].explanation == "failed: " + ", ".join(failed)


def test_phoenix_body_puts_every_note_on_the_root_span(
    mixed_run: tuple[Path, str, list[Session]],
) -> None:
    _, _, sessions = mixed_run
    items = phoenix_annotations(sessions)
    assert len(items) == sum(len(verdict_notes(s)) for s in sessions)
    for item in items:
        assert re.fullmatch(r"[0-9a-f]{16}", item["span_id"])
        assert item["annotator_kind"] == "CODE"
        assert item["identifier"] == "sessionproof"
    unjudged = [i for i in items if i["result"]["label"] == NOT_JUDGED]
    assert unjudged and all("score" not in i["result"] for i in unjudged)


class _Langfuse:
    """A loopback stand-in for Langfuse: takes OTLP at /api/public/otel/v1/traces and scores
    at /api/public/scores, refusing a score whose shape or credentials are not Langfuse's."""

    def __init__(self, status: int = 200) -> None:
        self.status = status
        self.scores: list[dict[str, Any]] = []
        self.problems: list[str] = []
        self.root_traces: dict[str, str] = {}  # trace id -> root span id, from the OTLP bodies
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                code = owner.take(self.path, self.headers.get("Authorization"), body)
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(b"{}")

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def take(self, path: str, authorization: str | None, body: bytes) -> int:
        if path.endswith("/v1/traces"):
            request = ExportTraceServiceRequest.FromString(body)
            for rs in request.resource_spans:
                for ss in rs.scope_spans:
                    for span in ss.spans:
                        if not span.parent_span_id:
                            self.root_traces[span.trace_id.hex()] = span.span_id.hex()
            return 200
        if path != "/api/public/scores":
            self.problems.append(f"unexpected path {path}")
            return 404
        expected = "Basic " + base64.b64encode(f"{PUBLIC}:{SECRET}".encode()).decode()
        if authorization != expected:
            self.problems.append("wrong credentials")
            return 401
        if self.status != 200:
            return self.status
        score = json.loads(body)
        problems = [f"unknown field {k}" for k in score if k not in SCORE_FIELDS]
        if not isinstance(score.get("name"), str) or "value" not in score:
            problems.append("name and value are required")
        if not re.fullmatch(r"[0-9a-f]{32}", str(score.get("traceId"))):
            problems.append(f"traceId {score.get('traceId')!r} is not an OTel trace id")
        if score.get("dataType") not in DATA_TYPES:
            problems.append(f"dataType {score.get('dataType')!r}")
        if score.get("dataType") == "CATEGORICAL" and not isinstance(score["value"], str):
            problems.append("a categorical value is a string")
        if not isinstance(score.get("comment", ""), str):
            problems.append("comment is a string")
        if problems:
            self.problems.extend(problems)
            return 400
        self.scores.append(score)
        return 200

    def __enter__(self) -> _Langfuse:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def langfuse_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in ("LANGFUSE_HOST", "LANGFUSE_BASE_URL", "OTEL_EXPORTER_OTLP_HEADERS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANGFUSE_PUBLIC_KEY", PUBLIC)
    monkeypatch.setenv("LANGFUSE_SECRET_KEY", SECRET)
    yield


@pytest.mark.slow
@pytest.mark.usefixtures("langfuse_env")
def test_an_export_files_langfuse_scores_on_the_traces_it_sent(
    mixed_run: tuple[Path, str, list[Session]], caplog: pytest.LogCaptureFixture
) -> None:
    store, run_id, sessions = mixed_run
    caplog.set_level(logging.DEBUG)
    with _Langfuse() as langfuse:
        export_traces(
            run_id,
            store=store,
            endpoint=f"{langfuse.url}/api/public/otel",
            headers={"Authorization": "Basic " + base64.b64encode(b"x:y").decode()},
            compat="langfuse",
        )
    assert langfuse.problems == []
    assert len(langfuse.scores) == sum(len(verdict_notes(s)) for s in sessions)
    verdicts = {s["traceId"]: s for s in langfuse.scores if s["name"] == "verdict"}
    # Every score lands on a trace the export sent, on its root observation.
    assert set(verdicts) == set(langfuse.root_traces)
    assert all(s["observationId"] == langfuse.root_traces[s["traceId"]] for s in langfuse.scores)
    by_label: dict[str, int] = {}
    for score in verdicts.values():
        by_label[score["value"]] = by_label.get(score["value"], 0) + 1
    expected = {"pass": 0, "fail": 0, NOT_JUDGED: 0}
    for s in sessions:
        expected[{True: "pass", False: "fail", None: NOT_JUDGED}[s.verdict]] += 1
    assert by_label == {k: v for k, v in expected.items() if v}
    assert all(s["dataType"] == "CATEGORICAL" for s in langfuse.scores)
    # No credential in anything written: not in the scores, the log, or the store.
    assert SECRET not in json.dumps(langfuse.scores) and SECRET not in caplog.text
    assert SECRET.encode() not in store.read_bytes()


@pytest.mark.usefixtures("langfuse_env")
def test_a_refusal_is_one_line_without_the_secret(
    mixed_run: tuple[Path, str, list[Session]],
) -> None:
    store, run_id, _ = mixed_run
    with _Langfuse(status=403) as langfuse, pytest.raises(InfraError) as caught:
        export_traces(
            run_id, store=store, endpoint=f"{langfuse.url}/api/public/otel", compat="langfuse"
        )
    text = str(caught.value)
    assert "HTTP 403 on POST /api/public/scores" in text and "\n" not in text
    assert SECRET not in text and PUBLIC not in text


@pytest.mark.usefixtures("langfuse_env")
def test_an_unknown_langfuse_address_is_said_and_the_traces_still_go(
    mixed_run: tuple[Path, str, list[Session]], caplog: pytest.LogCaptureFixture
) -> None:
    store, run_id, _ = mixed_run
    with _Langfuse() as langfuse:
        export_traces(
            run_id,
            store=store,
            endpoint=langfuse.url,  # a collector in front of Langfuse: its address is not known
            compat="langfuse",
        )
    assert "verdicts not sent: Langfuse's address is unknown" in caplog.text
    assert langfuse.root_traces and langfuse.scores == []


@pytest.mark.slow
@pytest.mark.usefixtures("langfuse_env")
def test_a_live_export_files_each_batchs_scores(
    mixed_run: tuple[Path, str, list[Session]],
) -> None:
    _, _, sessions = mixed_run
    with _Langfuse() as langfuse:
        with LiveExport(
            None, f"{langfuse.url}/api/public/otel", suite="demo", compat="langfuse"
        ) as live:
            for session in sessions:
                live.advance(session)
        assert live.dropped == 0
    assert langfuse.problems == []
    verdicts = {s["traceId"]: s["value"] for s in langfuse.scores if s["name"] == "verdict"}
    assert set(verdicts) == set(langfuse.root_traces)
    labels = {True: "pass", False: "fail", None: NOT_JUDGED}
    assert sorted(verdicts.values()) == sorted(labels[s.verdict] for s in sessions)
    assert len(langfuse.scores) == sum(len(verdict_notes(s)) for s in sessions)


def test_where_the_verdicts_go(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "LANGFUSE_HOST",
        "LANGFUSE_BASE_URL",
        "LANGFUSE_PUBLIC_KEY",
        "LANGFUSE_SECRET_KEY",
        "OTEL_EXPORTER_OTLP_HEADERS",
        "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    ):
        monkeypatch.delenv(name, raising=False)
    assert verdict_target(None, "http://127.0.0.1:6006") is None
    phoenix = verdict_target("openinference", "http://127.0.0.1:6006/v1/traces", {"api_key": "k"})
    assert isinstance(phoenix, VerdictTarget)
    assert phoenix.base == "http://127.0.0.1:6006" and phoenix.headers == {"api_key": "k"}
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:7007/")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", "Authorization=Bearer%20t0k3n")
    from_env = verdict_target("openinference", None)
    assert isinstance(from_env, VerdictTarget)
    assert from_env.base == "http://127.0.0.1:7007"
    assert from_env.headers == {"authorization": "Bearer t0k3n"}
    assert "t0k3n" not in repr(from_env) and "t0k3n" not in str(from_env)
    # Langfuse: its address from the OTLP endpoint, the Authorization header the traces use.
    lf = verdict_target("langfuse", "https://lf.example/api/public/otel")
    assert isinstance(lf, VerdictTarget)
    assert lf.base == "https://lf.example" and lf.headers == {"authorization": "Bearer t0k3n"}
    monkeypatch.setenv("LANGFUSE_HOST", "https://eu.lf.example/")
    lf = verdict_target("langfuse", "http://127.0.0.1:4318")
    assert isinstance(lf, VerdictTarget) and lf.base == "https://eu.lf.example"
    monkeypatch.delenv("LANGFUSE_HOST")
    assert isinstance(verdict_target("langfuse", "http://127.0.0.1:4318"), str)
