"""A run's bootstrap intervals: each distinct list of per-scenario values bootstrapped once,
every metric the interval its own values give."""

from __future__ import annotations

import pytest
from tests.runs.spy import spy

import sessionproof
from sessionproof.records import Session
from sessionproof.scoring import _run_context, run_metrics
from sessionproof.scoring.stats import pass_hat_k
from sessionproof.scoring.stats._internal import bootstrap_ci, trial_table
from sessionproof.suites import load_suite


def _sessions(agent: str, trials: int, faults: str | None) -> list[Session]:
    done = sessionproof.run_suite(
        "demo", agent, trials=trials, limit=6, seed=4, faults=faults, store=None
    )
    return list(done.sessions)


@pytest.mark.parametrize(
    ("agent", "faults", "distinct"),
    [
        ("oracle", None, 1),  # every trial agrees: accuracy and pass^1..4 are one list
        ("python:tests.scoring.agents_for_metrics:sloppy", "30%", None),
    ],
)
def test_each_metric_gets_the_interval_of_its_own_values(
    agent: str, faults: str | None, distinct: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    sessions = _sessions(agent, 4, faults)
    suite = load_suite("demo")
    scenarios = {s.id: s for s in suite.scenarios}
    drawn = spy(monkeypatch, _run_context, "bootstrap_ci", lambda values, **_: tuple(values))
    report = run_metrics(sessions, scenarios, suite.domain_for)
    table = trial_table(sessions)
    expected = {
        f"pass^{k}": bootstrap_ci(list(pass_hat_k(table, k).per_scenario.values()))
        for k in range(1, 5)
    }
    rates = [sum(bool(v) for v in t) / len(t) for t in table.values()]
    expected["session_accuracy"] = bootstrap_ci(rates)
    assert report.bootstrap_ci == expected
    # One bootstrap per distinct list of values, and no two metrics share an object.
    assert len(drawn) == len(set(drawn))
    if distinct is not None:
        assert len(drawn) == distinct
    assert len({id(i) for i in report.bootstrap_ci.values()}) == len(report.bootstrap_ci)
