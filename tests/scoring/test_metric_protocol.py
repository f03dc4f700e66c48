"""The metric protocol: a metric registered in code is computed per arm by `run_metrics`, keeps
sessions that were not judged out, says which sessions its value is missing for and why, and
the built-ins on the protocol give the numbers the report's own fields hold."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.store.factory import session

import sessionproof
from sessionproof.errors import ConfigError
from sessionproof.records import CriterionResult, Outcome, Session, TerminationReason
from sessionproof.scoring import (
    ALL_METRIC_DEFINITIONS,
    CallMetric,
    MetricsReport,
    SessionInput,
    metric,
    register_metric,
    run_metrics,
)
from sessionproof.scoring._builtin_metrics import BUILTIN_METRICS
from sessionproof.scoring._internal import TURN_DEFINITIONS, TraceCache, call_values, compute_metric
from sessionproof.scoring._metric import METRICS
from sessionproof.scoring._run_context import RunContext, Specs
from sessionproof.suites import load_suite


def _judged(scenario: str, trial: int, ok: bool, arm: str = "baseline") -> Session:
    passed = CriterionResult(name="db", passed=ok)
    return session("r1", scenario, trial, arm).model_copy(
        update={"outcome": Outcome(success=ok, reward=float(ok), criteria=[passed])}
    )


def _sessions() -> list[Session]:
    return [
        _judged("a", 0, True),
        _judged("a", 1, False),
        _judged("b", 0, True),
        _judged("b", 1, True),
        session("r1", "c", 0, success=None, termination=TerminationReason.infra_error),
    ]


@pytest.fixture
def registered() -> Iterator[list[str]]:
    names: list[str] = []
    yield names
    for name in names:
        METRICS.remove(name)


def test_a_metric_registered_in_code_is_in_the_report_with_its_definition(
    registered: list[str],
) -> None:
    @metric("trial_number", "the session's trial index, over judged sessions")
    def trial_number(item: SessionInput) -> float:
        return float(item.session.trial)

    registered.append("trial_number")
    report = run_metrics(_sessions(), {}, lambda s: pytest.fail("no domain is needed"))
    value = report.metrics["trial_number"]
    # Four judged sessions (trials 0, 1, 0, 1); the infra_error session is neither 0 nor 1.
    assert (value.value, value.n, value.not_judged) == (0.5, 4, 1)
    assert value.ci95 is not None and value.ci95[0] <= 0.5 <= value.ci95[1]
    assert report.definitions["trial_number"] == "the session's trial index, over judged sessions"
    assert "trial_number" in report.model_dump(mode="json")["metrics"]


def test_without_user_metrics_the_dump_has_no_metrics_key() -> None:
    report = run_metrics(_sessions(), {}, lambda s: pytest.fail("no domain is needed"))
    assert report.metrics == {}
    assert "metrics" not in report.model_dump(mode="json")


def test_a_metric_that_raises_on_one_session_says_which_and_why_and_counts_the_rest(
    registered: list[str],
) -> None:
    @metric("picky", "1 for every judged session of scenario a; raises on b")
    def picky(item: SessionInput) -> float:
        if item.session.scenario_id == "b":
            raise ValueError("cannot read scenario b")
        return 1.0

    registered.append("picky")
    value = run_metrics(_sessions(), {}, lambda s: pytest.fail("no domain")).metrics["picky"]
    assert value.value == 1.0 and value.n == 2
    assert set(value.missing) == {s.session_id for s in _sessions() if s.scenario_id == "b"}
    assert all(v == "ValueError: cannot read scenario b" for v in value.missing.values())


def test_not_applicable_and_non_numbers_are_counted_apart_never_as_zero() -> None:
    def odd(item: SessionInput) -> float | None:
        if item.session.scenario_id == "a":
            return None
        return float("nan") if item.session.trial else 3.0

    m = metric("odd", "3 for b's first trial", register=False)(odd)
    value = compute_metric(m, [SessionInput(s) for s in _sessions()])
    assert (value.value, value.n, value.not_applicable, value.not_judged) == (3.0, 1, 2, 1)
    (why,) = value.missing.values()
    assert why.startswith("not a finite number")


def test_a_metric_computed_per_arm_never_pools_them(registered: list[str]) -> None:
    register_metric(
        metric("passed", "1 when the session passed", register=False)(
            lambda item: item.session.verdict
        )
    )
    registered.append("passed")
    sessions = [*_sessions(), _judged("a", 0, False, "faults"), _judged("b", 0, False, "faults")]
    by_arm = {
        arm: run_metrics([s for s in sessions if s.arm == arm], {}, lambda s: pytest.fail())
        for arm in ("baseline", "faults")
    }
    assert by_arm["baseline"].metrics["passed"].value == 0.75
    assert by_arm["faults"].metrics["passed"].value == 0.0
    assert by_arm["baseline"].metrics["passed"].value == by_arm["baseline"].summary.session_accuracy


def test_a_plug_in_that_is_not_a_metric_is_refused_at_load_and_said_in_skipped(
    registered: list[str],
) -> None:
    METRICS.add("not_a_metric", "os.path:join")
    registered.append("not_a_metric")
    with pytest.raises(ConfigError, match="not a Metric"):
        METRICS.get("not_a_metric")
    report = run_metrics(_sessions(), {}, lambda s: pytest.fail())
    assert "not a Metric" in report.skipped["not_a_metric"]
    assert "not_a_metric" not in report.metrics


def test_an_empty_definition_is_refused() -> None:
    with pytest.raises(ConfigError, match="definition is empty"):
        register_metric(metric("mute", " ", register=False)(lambda item: 1.0))


def test_the_built_ins_are_registered_with_the_definitions_printed() -> None:
    printed = {**ALL_METRIC_DEFINITIONS, **TURN_DEFINITIONS}
    for m in BUILTIN_METRICS:
        assert METRICS.get(m.name) is m
        assert printed[m.name] == m.definition


def test_every_field_of_the_report_is_made_by_a_built_in_metric() -> None:
    made: set[str] = set()
    report = run_metrics(_sessions(), {}, lambda s: pytest.fail())
    ctx = RunContext(_sessions(), Specs({}, lambda s: pytest.fail()), TraceCache())
    for m in BUILTIN_METRICS:
        if m.report is not None:
            fields = m.report(ctx)
            made |= set(fields)
            for name, value in fields.items():
                assert getattr(report, name) == value, name
    own = {"sessions", "scenarios_missing", "skipped", "definitions", "metrics"}
    assert made == set(MetricsReport.model_fields) - own


def test_the_built_ins_on_the_protocol_agree_with_the_report() -> None:
    sessions = _sessions()
    report = run_metrics(sessions, {}, lambda s: pytest.fail())
    items = [SessionInput(s) for s in sessions]
    by_name = {m.name: compute_metric(m, items) for m in BUILTIN_METRICS}
    accuracy = by_name["session_accuracy"]
    assert accuracy.value == report.summary.session_accuracy
    assert accuracy.ci95 == report.summary.ci95
    assert accuracy.not_judged == report.summary.infra_errors == 1
    assert by_name["pass^k"].detail["by_k"] == report.summary.pass_hat_k
    assert by_name["pass@k"].detail["by_k"] == report.pass_at_k
    assert by_name["flakiness"].detail["flaky"] == report.flaky_scenarios == 1


def test_a_credential_in_the_reason_a_metric_raised_with_is_redacted() -> None:
    key = "sk-" + "q" * 40

    def leaky(item: SessionInput) -> float:
        raise RuntimeError(f"upstream refused key {key}")

    value = compute_metric(
        metric("leaky", "raises", register=False)(leaky), [SessionInput(s) for s in _sessions()]
    )
    assert len(value.missing) == 4
    assert all(
        key not in why and why.startswith("RuntimeError: upstream refused key")
        for why in value.missing.values()
    )


def test_the_built_ins_per_session_values_are_the_reports_on_a_real_run() -> None:
    done = sessionproof.run_suite(
        "demo", "python:tests.scoring.agents_for_metrics:sloppy", trials=2, faults="30%"
    )
    sessions = list(done.sessions)
    suite = load_suite("demo")
    scenarios = {s.id: s for s in suite.scenarios}
    report = run_metrics(sessions, scenarios, suite.domain_for)
    items = [
        SessionInput(s, scenarios[s.scenario_id], suite.domain_for(scenarios[s.scenario_id]))
        for s in sessions
    ]
    by_name = {m.name: m for m in BUILTIN_METRICS}
    assert report.survival is not None and report.calls is not None
    on_path = {p.session_id: p for p in report.survival.per_session}
    assert on_path and len(on_path) < len(sessions) + 1
    for item in items:
        value = by_name["survival_by_depth"].value(item)
        found = on_path.get(item.session.session_id)
        if found is None:
            assert value is None
        else:
            assert value == (found.survived / found.decisions if found.decisions else 1.0)
    recovery = compute_metric(by_name["error_recovery_rate"], items)
    assert recovery.value == report.error_recovery["error_recovery_rate"]
    assert recovery.n == report.error_recovery["failures"] > 0
    valid = compute_metric(by_name["call_validity_rate"], items)
    assert valid.n == report.calls.sessions
    assert (valid.value == 1.0) == (report.calls.call_validity_rate == 1.0)


def test_the_built_ins_per_session_values_leave_out_what_the_report_leaves_out() -> None:
    (done,) = sessionproof.run_suite("demo", "oracle", limit=1).sessions
    suite = load_suite("demo")
    scenario = next(s for s in suite.scenarios if s.id == done.scenario_id)
    domain = suite.domain_for(scenario)
    by_name = {m.name: m for m in BUILTIN_METRICS}
    judged = SessionInput(done, scenario, domain)
    assert by_name["survival_by_depth"].value(judged) == 1.0
    assert by_name["call_validity_rate"].value(judged) == 1.0
    unjudged = SessionInput(done.model_copy(update={"outcome": None}), scenario, domain)
    assert by_name["survival_by_depth"].value(unjudged) is None  # "no verdict", as survival
    crashed = done.model_copy(update={"termination": TerminationReason.infra_error})
    infra = SessionInput(crashed, scenario, domain)
    assert by_name["call_validity_rate"].value(infra) is None  # call_accuracy skips it too
    assert by_name["single_call_accuracy"].value(infra) is None


def test_a_metric_placed_on_calls_gives_each_call_its_value_and_the_session_their_mean() -> None:
    def lengths(item: SessionInput) -> dict[str, float | None]:
        return {"c1": 2.0, "c2": 4.0, "c3": None}  # c3 not judged: no value, not a zero

    m = metric("per_call", "a value per call", span="call", register=False)(lengths)
    assert isinstance(m, CallMetric)
    item = SessionInput(_sessions()[0])
    assert m.call_values(item) == {"c1": 2.0, "c2": 4.0}
    assert m.value(item) == 3.0
    assert call_values(m, item) == ({"c1": 2.0, "c2": 4.0}, None)

    def broken(item: SessionInput) -> dict[str, float]:
        raise KeyError("c9")

    bad = metric("per_call_bad", "raises", span="call", register=False)(broken)
    assert call_values(bad, item) == ({}, "KeyError: 'c9'")


ON_CALLS = """
from sessionproof.scoring import Aggregate, Placement


class OnCalls:
    name = "on_calls"
    definition = "placed on calls, with nothing to place"
    placement = Placement(span="call")
    judged_only = True

    def value(self, item):
        return 1.0

    def aggregate(self, values):
        return Aggregate(1.0, len(values))
"""


def test_a_metric_placed_on_calls_without_call_values_is_refused_at_load(
    registered: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "on_calls_probe.py").write_text(ON_CALLS)
    monkeypatch.syspath_prepend(str(tmp_path))
    from on_calls_probe import OnCalls  # type: ignore[import-not-found]

    with pytest.raises(ConfigError, match="placed on calls, it needs call_values"):
        register_metric(OnCalls())
    # Named by reference, as an entry point names it: made and checked when first loaded.
    METRICS.add("on_calls", "on_calls_probe:OnCalls")
    registered.append("on_calls")
    report = run_metrics(_sessions(), {}, lambda s: pytest.fail())
    assert "needs call_values" in report.skipped["on_calls"]
    assert "on_calls" not in report.metrics
