"""`--otel-compat`: the attributes Phoenix (OpenInference) and Langfuse read, on top of the
GenAI ones, without changing what an import of the file rebuilds."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.trace import ReadableSpan

from sessionproof.cli import main
from sessionproof.errors import ConfigError
from sessionproof.runs import RunReport, export_traces, import_traces
from sessionproof.store import Store
from sessionproof.telemetry import run_spans


def _a(span: ReadableSpan) -> dict[str, Any]:
    return dict(span.attributes or {})


def _op(span: ReadableSpan) -> str:
    return str(_a(span).get("gen_ai.operation.name", ""))


@pytest.mark.slow
def test_openinference_kinds_sessions_models_and_tools(faulty_run: tuple[Path, RunReport]) -> None:
    store, report = faulty_run
    _, spans = run_spans(report.run_id, store=store, compat="openinference")
    roots = {s.context.trace_id: _a(s) for s in spans if s.parent is None and s.context}
    kinds = {"invoke_agent": "AGENT", "chat": "LLM", "execute_tool": "TOOL", "": "CHAIN"}
    for span in spans:
        a = _a(span)
        assert a["openinference.span.kind"] == kinds[_op(span)]
        assert span.context is not None
        root = roots[span.context.trace_id]
        assert a["session.id"] == f"{report.run_id}:{root['gen_ai.conversation.id']}"
        assert "input.value" not in a and "output.value" not in a  # content not opted in
        if _op(span) == "execute_tool":
            assert a["tool.name"] == a["gen_ai.tool.name"]
        if _op(span) == "chat":
            assert a["llm.model_name"] == a["gen_ai.request.model"]
            assert a["llm.token_count.total"] == (
                a["gen_ai.usage.input_tokens"] + a["gen_ai.usage.output_tokens"]
            )
    for root in roots.values():
        meta = json.loads(root["metadata"])
        assert meta["scenario_id"] == root["sessionproof.scenario.id"]
        assert meta["run_id"] == report.run_id


def test_openinference_input_and_output_only_with_content(
    faulty_run: tuple[Path, RunReport],
) -> None:
    store, report = faulty_run
    _, spans = run_spans(report.run_id, store=store, compat="openinference", content=True)
    tools = [
        _a(s) for s in spans if _op(s) == "execute_tool" and "gen_ai.tool.call.result" in _a(s)
    ]
    assert tools
    for a in tools:
        assert a["output.value"] == a["gen_ai.tool.call.result"]
        if "gen_ai.tool.call.arguments" in a:
            assert a["input.value"] == a["gen_ai.tool.call.arguments"]
    roots = [_a(s) for s in spans if s.parent is None]
    assert all(isinstance(r.get("input.value"), str) for r in roots)


def test_langfuse_sessions_names_tags_and_failed_tools(faulty_run: tuple[Path, RunReport]) -> None:
    store, report = faulty_run
    _, spans = run_spans(report.run_id, store=store, compat="langfuse")
    with Store.open_for_reading(store) as db:
        sessions = {s.session_id: s for s in db.load_sessions(report.run_id)}
    types = {"invoke_agent": "agent", "chat": "generation", "execute_tool": "tool", "": "span"}
    failed = 0
    for span in spans:
        a = _a(span)
        assert a["langfuse.observation.type"] == types[_op(span)]
        if span.parent is None:
            session = sessions[a["gen_ai.conversation.id"]]
            assert a["langfuse.session.id"] == f"{report.run_id}:{session.session_id}"
            assert a["langfuse.trace.name"] == session.scenario_id
            verdict = "pass" if session.success else "fail"
            assert verdict in a["langfuse.trace.tags"]
            assert a["langfuse.trace.metadata.verdict"] == verdict
        if _op(span) == "execute_tool":
            is_error = "error.type" in a
            failed += is_error
            assert (a.get("langfuse.observation.level") == "ERROR") == is_error
    assert failed > 0


@pytest.mark.slow
@pytest.mark.parametrize("compat", ["openinference", "langfuse"])
def test_an_import_of_a_compat_export_keeps_the_verdicts(
    faulty_run: tuple[Path, RunReport], tmp_path: Path, compat: str
) -> None:
    store, report = faulty_run
    trace = tmp_path / "t.json"
    export_traces(report.run_id, store=store, output=trace, compat=compat)
    imported = import_traces(trace, store=None)
    assert imported.summary == report.summary


def test_an_unknown_compat_is_a_one_line_config_error(
    faulty_run: tuple[Path, RunReport],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    store, report = faulty_run
    with pytest.raises(ConfigError, match="openinference, langfuse"):
        export_traces(report.run_id, store=store, output=tmp_path / "t.json", compat="jaeger")
    args = ["export", report.run_id, "-o", str(tmp_path / "t.json"), "--otel-compat", "x"]
    monkeypatch.setattr(sys, "argv", ["sessionproof", *args, "--store", str(store)])
    with pytest.raises(SystemExit) as exited:
        main()
    assert exited.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: --otel-compat must be one of") and "\n" not in err
    assert not (tmp_path / "t.json").exists()
