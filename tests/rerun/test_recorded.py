"""Rerunning the shared tau2 trajectories without their domains: every call is answered from
the transcript's own recorded results, and a call the recording cannot answer is marked."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from sessionproof.cli._internal import app
from sessionproof.domains import _registry
from sessionproof.domains.sources._internal import NO_RECORDED_RESPONSE, recorded_calls
from sessionproof.errors import UnknownDomainError
from sessionproof.importers import import_file
from sessionproof.records import ErrorClass, Session
from sessionproof.records._internal import RecordedDivergenceEvent
from sessionproof.rerun._internal import rerun
from sessionproof.store import Store

from ._files import AIRLINE_GPT, TRAJECTORIES

REPLAY = "python:tests.rerun.replay_agents:replay"
CHANGED = "python:tests.rerun.replay_agents:replay_changed"


@pytest.fixture
def no_domains(monkeypatch: pytest.MonkeyPatch) -> None:
    """No domain can be loaded: any lookup fails as an unknown domain would."""

    def unavailable(name: str) -> None:
        raise UnknownDomainError(f"unknown domain {name!r} (deliberately not loaded)")

    monkeypatch.setattr(_registry, "_REGISTERED", {})
    monkeypatch.setattr(_registry, "_BUILTIN", {})
    for module in (
        "sessionproof.domains",
        "sessionproof.rerun._plan",
        "sessionproof.suites._suite",
    ):
        monkeypatch.setattr(f"{module}.get_domain", unavailable)


def _sessions(store: Path, run_id: str) -> dict[str, Session]:
    with Store.open(store, read_only=True) as db:
        return {s.scenario_id: s for s in db.load_sessions(run_id)}


def _originals(path: Path) -> dict[str, Session]:
    return {i.session.session_id: i.session for i in import_file(path, "tau2", run_id="o").sessions}


@pytest.mark.slow
@pytest.mark.parametrize("domain", ["recorded", None], ids=["--domain recorded", "automatic"])
@pytest.mark.parametrize("path", TRAJECTORIES, ids=lambda p: p.name[:24])
def test_replaying_the_originals_calls_reproduces_every_recorded_output(
    path: Path, domain: str | None, tmp_path: Path, no_domains: None
) -> None:
    store = tmp_path / "s.duckdb"
    report = rerun(path, REPLAY, domain=domain, store_path=store, max_steps=200, concurrency=2)
    originals = _originals(path)

    assert report.skipped == []
    assert report.recorded == len(originals) == len(report.transcripts)
    sessions = _sessions(store, report.run_id)
    compared = 0
    for t in report.transcripts:
        assert t.judged_by == "recorded" and t.divergences == [0], t.id
        assert t.why is not None and "recorded tool results" in t.why
        if domain is None:
            assert "domain not available" in t.why
        expected = [c.result for c in recorded_calls(originals[t.id])]
        got = sessions[t.id].tool_results()
        assert [(r.name, r.output, r.error_class) for r in got] == [
            (r.name, r.output, r.error_class) for r in expected
        ], t.id
        assert not sessions[t.id].events_of(RecordedDivergenceEvent)
        compared += len(expected)
    assert compared > 0, "the check must cover some calls"


def test_a_changed_call_is_marked_as_a_divergence(tmp_path: Path, no_domains: None) -> None:
    store = tmp_path / "s.duckdb"
    report = rerun(AIRLINE_GPT, CHANGED, domain="recorded", store_path=store, max_steps=200)
    sessions = _sessions(store, report.run_id)
    originals = _originals(AIRLINE_GPT)

    for t in report.transcripts:
        calls = recorded_calls(originals[t.id])
        if not calls:
            assert t.divergences == [0]
            continue
        assert t.divergences == [1], t.id
        session = sessions[t.id]
        [event] = session.events_of(RecordedDivergenceEvent)
        first_call = session.tool_calls()[0]
        assert event.payload.call_id == first_call.id
        assert event.payload.tool == calls[0].tool and event.payload.reason == "arguments"
        first = session.tool_results()[0]
        assert first.error_class is ErrorClass.not_found
        assert first.output.startswith(f"Error: {NO_RECORDED_RESPONSE} for {calls[0].tool}")
        # The calls after the changed one are still answered from the recording.
        later = [r.output for r in session.tool_results()[1:]]
        assert later == [c.result.output for c in calls[1 : 1 + len(later)]]


def test_cli_says_the_rerun_used_recorded_responses(tmp_path: Path, no_domains: None) -> None:
    result = CliRunner().invoke(
        app,
        [
            "rerun",
            str(AIRLINE_GPT),
            "--model",
            REPLAY,
            "--limit",
            "2",
            "--max-steps",
            "100",
            "--store",
            str(tmp_path / "s.duckdb"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "recorded responses" in result.output
    assert "divergences" in result.output
