"""Per-session metrics made as sessions end: the same report, with nothing left to make."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests.runs.spy import spy

from sessionproof import runs
from sessionproof.domains import DomainSpec, get_domain
from sessionproof.patterns import MineOptions, mine
from sessionproof.patterns import _report as patterns_report
from sessionproof.patterns._internal import tokens_of
from sessionproof.records import Scenario, Session
from sessionproof.report.html import _data as html_data
from sessionproof.runs import _run as run_module
from sessionproof.scoring import _attribution, _calls, _recovery, _survival, run_metrics
from sessionproof.scoring import _cost as cost_module
from sessionproof.scoring._internal import (
    MetricsWarmer,
    TraceCache,
    cost_summary,
    shipped_prices,
)
from sessionproof.store import Store, _kept
from sessionproof.suites._score import score_transcripts

FIXTURE = Path(__file__).parents[1] / "fixtures/tau/gpt-4.1_airline_default_gpt-4.1_1trials.json"


def _domain(scenario: Scenario) -> DomainSpec:
    return get_domain(scenario.domain)


@pytest.fixture(scope="module")
def judged() -> tuple[list[Session], dict[str, Scenario]]:
    """Real tau2 airline sessions of GPT-4.1, judged: passes and failures of every kind."""
    scored = score_transcripts(FIXTURE, "tau2", None, None)
    return scored.judged, scored.scenarios


_MAKERS = (
    (_survival, "_walked"),
    (_calls, "_checks"),
    (_attribution, "_source"),
    (_recovery, "_failures"),
)
"""What makes each per-session metric (behind its cache: called only when it is made)."""


def _watch(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """(function, session id) of every per-session metric made from here on, by the
    metrics or by a warmer."""
    made: list[tuple[str, str]] = []
    for owner, name in _MAKERS:

        def note(*args: Any, name: str = name, **_: Any) -> None:
            made.append((name, args[0].session_id))

        spy(monkeypatch, owner, name, note)
    return made


def test_metrics_made_as_sessions_end_are_the_metrics_made_at_once(
    judged: tuple[list[Session], dict[str, Scenario]], monkeypatch: pytest.MonkeyPatch
) -> None:
    sessions, scenarios = judged
    at_once = run_metrics(sessions, scenarios, _domain)
    assert at_once.failure_sources.failed > 0 and at_once.survival is not None
    assert at_once.calls is not None and at_once.calls.calls > 0
    warmer = MetricsWarmer(scenarios, _domain)
    for session in sessions:
        warmer.add(session)
    made = _watch(monkeypatch)
    warmed = run_metrics(sessions, scenarios, _domain, warmer.traces)
    assert made == []  # every session's survival, calls and failure source were ready
    assert warmed.model_dump() == at_once.model_dump()


def test_a_cache_warmed_against_other_scenarios_is_not_used(
    judged: tuple[list[Session], dict[str, Scenario]], monkeypatch: pytest.MonkeyPatch
) -> None:
    sessions, scenarios = judged
    warmer = MetricsWarmer(scenarios, _domain)
    for session in sessions:
        warmer.add(session)
    # Equal scenarios, other objects (a suite loaded again): made again, not reused.
    again = {sid: s.model_copy(deep=True) for sid, s in scenarios.items()}
    made = _watch(monkeypatch)
    warmed = run_metrics(sessions, again, _domain, warmer.traces)
    assert len({sid for _, sid in made}) == len(sessions)
    assert warmed.model_dump() == run_metrics(sessions, scenarios, _domain).model_dump()


def test_the_warmer_never_raises_and_leaves_what_it_cannot_make(
    judged: tuple[list[Session], dict[str, Scenario]],
) -> None:
    sessions, scenarios = judged

    def broken(scenario: Scenario) -> DomainSpec:
        raise RuntimeError("a domain that cannot be loaded")

    warmer = MetricsWarmer(scenarios, broken)
    unknown = sessions[0].model_copy(update={"scenario_id": "no such scenario"})
    for session in (*sessions[:3], unknown):
        warmer.add(session)  # no exception: the report meets the problem and reports it
    metrics = run_metrics(sessions[:3], scenarios, _domain, warmer.traces)
    assert metrics.sessions == 3 and metrics.calls is not None


def test_tokens_made_as_sessions_end_are_mined_as_made_at_once(
    judged: tuple[list[Session], dict[str, Scenario]], monkeypatch: pytest.MonkeyPatch
) -> None:
    sessions, _ = judged
    opts = MineOptions(early_warning=False)
    at_once = mine(sessions, opts)
    warmer = MetricsWarmer({}, _domain)
    for session in sessions:
        tokens_of(session, traces=warmer.traces)
    made = spy(monkeypatch, patterns_report, "tokenize", lambda s, *_: s.session_id)
    warmed = mine(sessions, opts, traces=warmer.traces)
    assert made == []
    assert warmed.model_dump() == at_once.model_dump()


def test_a_run_makes_its_reports_per_session_metrics_as_its_sessions_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = _watch(monkeypatch)
    tokenized = spy(monkeypatch, patterns_report, "tokenize", lambda s, *_: s.session_id)
    rows = spy(monkeypatch, html_data, "_event_rows", lambda s: s.session_id)
    order: list[str] = []

    def noted(what: str) -> Callable[..., str]:
        def note(*args: Any, **_: Any) -> str:
            order.append(what)
            return str(args[0].session_id) if args and hasattr(args[0], "session_id") else what

        return note

    views = spy(monkeypatch, patterns_report, "view_of", noted("view"))
    criteria = spy(monkeypatch, html_data, "criteria_records", noted("criteria"))
    gold = spy(monkeypatch, html_data, "calls_record", noted("gold"))
    tallies = spy(monkeypatch, cost_module, "session_tally", noted("tally"))
    spy(monkeypatch, run_module, "costs_by_arm", noted("report"))
    spy(monkeypatch, run_module, "write_report", noted("report"))
    store = tmp_path / "s.duckdb"
    config = runs.RunConfig(suite="demo", model="oracle", limit=3, trials=2, store=store)
    done = runs.run(config, html=True)
    assert done.html_report is not None and Path(done.html_report).is_file()
    # The motif views and the drill-down's rows too: each made once, as its session ended
    # (before the report began), none again after.
    assert sorted(views) == sorted(criteria) == sorted(gold) == sorted(rows) == sorted(tallies)
    assert "report" in order and set(order[order.index("report") :]) == {"report"}
    ids = sorted(s.session_id for s in done.sessions)
    # Each made once, as the sessions ended; the report found every one of them made.
    # The call checks too: none of the four was made again by the report.
    for _, maker in _MAKERS:
        assert sorted(sid for name, sid in made if name == maker) == ids, maker
    assert sorted(tokenized) == ids and sorted(rows) == ids and sorted(tallies) == ids
    # The run's cost, from tallies made as its sessions ended, is the cost made at once.
    at_once = cost_summary(done.sessions, shipped_prices())
    assert done.cost_by_arm["baseline"].model_dump() == at_once.model_dump()
    before = len(made)
    again = runs.metrics(done.run_id, store)  # read back from the store: made again
    assert len(made) > before and again.arms["baseline"].survival is not None
    # The page made from what the run made as it went is the page made from the store.
    cold = runs.report([done.run_id], tmp_path / "cold.html", store)
    assert cold.read_text(encoding="utf-8") == Path(done.html_report).read_text(encoding="utf-8")


def test_a_run_whose_store_stops_keeping_stops_making_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Past the store's keep limit its run's sessions are read back from the file, as new
    # objects: nothing made for the written ones would be found, so nothing more is made.
    monkeypatch.setattr(Store, "keeping", property(lambda self: False))
    warmed = spy(monkeypatch, MetricsWarmer, "add", lambda _, s: s.session_id)
    store = tmp_path / "s.duckdb"
    config = runs.RunConfig(suite="demo", model="oracle", limit=3, trials=2, store=store)
    done = runs.run(config, html=True)
    assert warmed == []
    assert done.html_report is not None
    cold = runs.report([done.run_id], tmp_path / "cold.html", store)
    assert cold.read_text(encoding="utf-8") == Path(done.html_report).read_text(encoding="utf-8")


def test_past_the_keep_limit_the_warmer_stops_and_the_page_is_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_kept.KeptSessions.__init__, "__defaults__", (2,))  # keep 2 sessions
    warmed = spy(monkeypatch, MetricsWarmer, "add", lambda _, s: s.session_id)
    store = tmp_path / "s.duckdb"
    config = runs.RunConfig(suite="demo", model="oracle", limit=3, trials=2, store=store)
    done = runs.run(config, html=True)
    assert len(warmed) <= 2 < len(done.sessions)  # no more than the store kept
    assert done.html_report is not None
    cold = runs.report([done.run_id], tmp_path / "cold.html", store)
    assert cold.read_text(encoding="utf-8") == Path(done.html_report).read_text(encoding="utf-8")


def test_a_cache_made_to_keep_nothing_makes_each_value_every_time() -> None:
    made: list[object] = []

    def make(session: object) -> int:
        made.append(session)
        return len(made)

    session = object()
    kept, unkept = TraceCache(), TraceCache(keep_made=False)
    assert kept.made("x", (session,), make) == kept.made("x", (session,), make) == 1
    # What run_metrics uses when given no cache: its peak memory stays as before.
    assert unkept.made("x", (session,), make) == 2 and unkept.made("x", (session,), make) == 3
