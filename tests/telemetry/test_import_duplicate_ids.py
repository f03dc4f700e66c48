"""Two conversations whose spans reuse the same trace and span ids (a tracer restarting its
id generator) become two sessions, each with its own calls, and every reused id is named in
a warning (issue 41.25, duplicate ids: one conversation was silently merged into the other)."""

from __future__ import annotations

from pathlib import Path

from sessionproof.importers import import_file
from sessionproof.records import ToolCallEvent
from sessionproof.runs import import_traces

from .test_import_malformed import T1, T2, _file, _session


def _calls(path: Path) -> tuple[dict[str, list[str]], list[str]]:
    result = import_file(path, "auto", run_id="r")
    calls = {
        i.session.session_id: [e.payload.id for e in i.session.events_of(ToolCallEvent)]
        for i in result.sessions
    }
    return calls, [str(e) for e in result.errors]


def test_two_conversations_in_one_reused_trace_are_two_sessions(tmp_path: Path) -> None:
    spans = _session(T1, "conv-1", 100) + _session(T1, "conv-2", 200)
    calls, problems = _calls(_file(tmp_path, spans))
    assert calls == {
        "conv-1": ["conv-1-c1", "conv-1-c2"],
        "conv-2": ["conv-2-c1", "conv-2-c2"],
    }
    assert len(problems) == 4  # one per reused span id
    assert all("is used by 2 spans" in p and T1 in p for p in problems)
    assert "span id " + T1[:16] in problems[0] and "(#0, #4)" in problems[0]


def test_interleaved_and_out_of_order_the_same(tmp_path: Path) -> None:
    a, b = _session(T1, "conv-1", 100), _session(T1, "conv-2", 200)
    spans = [b[3], a[2], b[0], a[0], b[1], a[3], b[2], a[1]]
    calls, _ = _calls(_file(tmp_path, spans))
    assert calls == {
        "conv-1": ["conv-1-c1", "conv-1-c2"],
        "conv-2": ["conv-2-c1", "conv-2-c2"],
    }


def test_distinct_traces_and_one_conversation_per_trace_say_nothing(tmp_path: Path) -> None:
    spans = _session(T1, "conv-1", 100) + _session(T2, "conv-2", 200)
    calls, problems = _calls(_file(tmp_path, spans))
    assert sorted(calls) == ["conv-1", "conv-2"] and problems == []


def test_both_are_stored(tmp_path: Path) -> None:
    spans = _session(T1, "conv-1", 100) + _session(T1, "conv-2", 200)
    report = import_traces(_file(tmp_path, spans), store=tmp_path / "s.duckdb")
    assert report.summary.sessions == 2
