"""Every recipe of docs/extending.md runs as the page says (the page includes these files)."""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest

import sessionproof
from sessionproof.agents._internal import accepted_specs, unregister_provider
from sessionproof.domains import get_domain
from sessionproof.importers import _formats, import_file
from sessionproof.records import Scenario, TerminationReason, ToolCall, ToolCallEvent
from sessionproof.runs import metrics
from sessionproof.scoring import _calls, run_metrics
from sessionproof.scoring._internal import match_gold
from sessionproof.scoring._metric import METRICS
from sessionproof.suites import _domains, load_suite

RECIPES = Path(__file__).resolve().parents[2] / "docs" / "examples" / "recipes"
PAGE = RECIPES.parents[1] / "extending.md"


@pytest.fixture
def recipe(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str], ModuleType]]:
    """Imports a recipe module fresh; the registries it writes to are restored afterwards."""
    monkeypatch.syspath_prepend(str(RECIPES))
    for registry in (_formats.FORMAT_REGISTRY, _calls.CALL_RULES, _domains.TOOL_SOURCES):
        monkeypatch.setattr(registry, "_refs", dict(registry._refs))
        monkeypatch.setattr(registry, "_objects", dict(registry._objects))
    loaded: list[str] = []

    def load(name: str) -> ModuleType:
        sys.modules.pop(name, None)
        loaded.append(name)
        return importlib.import_module(name)

    yield load
    unregister_provider("canned")
    for name in loaded:
        sys.modules.pop(name, None)


def test_every_recipe_file_is_on_the_page() -> None:
    page = PAGE.read_text()
    files = sorted(p for p in RECIPES.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    assert len(files) >= 9
    for path in files:
        assert f'--8<-- "docs/examples/recipes/{path.relative_to(RECIPES)}"' in page, path


def test_provider_recipe(recipe: Callable[[str], ModuleType]) -> None:
    recipe("canned_provider")
    assert "canned:TEXT" in accepted_specs()
    result = sessionproof.run_suite("quickstart", "canned:Sorry, I cannot help.", limit=1)
    (session,) = result.sessions
    assert session.model == "canned:Sorry, I cannot help."
    replies = [m.content for m in session.messages() if m.role == "assistant"]
    assert replies and set(replies) == {"Sorry, I cannot help."}
    assert session.verdict is False  # a canned reply looks nothing up


def test_tools_recipe_passes_with_the_oracle_and_fails_when_the_tools_fail() -> None:
    project = str(RECIPES / "library")
    good = sessionproof.run_suite(project, "oracle")
    assert good.summary.session_accuracy == 1.0
    (session,) = good.sessions
    calls = [(e.payload.name, e.payload.arguments) for e in session.events_of(ToolCallEvent)]
    assert calls == [("get_loan", {"loan_id": "L7"}), ("renew_loan", {"loan_id": "L7"})]
    broken = sessionproof.run_suite(project, "oracle", faults="unavailable:100%")
    assert broken.summary.session_accuracy == 0.0


def test_format_recipe(recipe: Callable[[str], ModuleType], tmp_path: Path) -> None:
    recipe("support_log_format")
    log = tmp_path / "tickets.jsonl"
    log.write_text(
        '{"ticket": "T1", "resolved": true, "turns": [{"customer": "Renew L7"}, '
        '{"agent": null, "calls": [{"tool": "get_loan", "args": {"loan_id": "L7"}, '
        '"result": "{}"}]}, {"agent": "Done."}]}\n'
        "not json\n"
        '{"ticket": "T2", "resolved": false, "turns": [{"customer": "Renew L9"}, '
        '{"agent": null, "calls": [{"tool": "get_loan", "args": {"loan_id": "L9"}, '
        '"result": "Error: no loan L9"}]}, {"agent": "Sorry."}]}\n'
    )
    result = import_file(log, "support-log", run_id="tickets")
    assert import_file(log, "auto", run_id="tickets").format == "support-log"  # its sniff
    assert [s.session.session_id for s in result.sessions] == ["T1", "T2"]
    assert [s.reported.success for s in result.sessions if s.reported] == [True, False]
    assert [e.index for e in result.skipped] == [1]
    first, second = (s.session for s in result.sessions)
    assert first.termination is TerminationReason.agent_stop
    assert [r.error_class for r in first.tool_results()] == [None]
    assert [r.error_class is not None for r in second.tool_results()] == [True]


def test_tool_source_recipe(recipe: Callable[[str], ModuleType], tmp_path: Path) -> None:
    module = recipe("canned_tool_source")
    _domains.register_tool_source("canned", module.canned_source)
    (tmp_path / "domains.yaml").write_text(
        "domains:\n  weather:\n    canned: {get_forecast: {sky: sunny, c: 21}}\n"
    )
    (tmp_path / "scenarios.yaml").write_text(
        "scenarios:\n  - id: forecast\n    domain: weather\n"
        '    user: {turns: ["Weather in Lisbon?"]}\n'
        "    criteria: {gold_actions: [{tool: get_forecast, args: {city: Lisbon}}]}\n"
    )
    (session,) = sessionproof.run_suite(str(tmp_path), "oracle").sessions
    assert session.verdict is True
    assert [json.loads(r.output) for r in session.tool_results()] == [{"sky": "sunny", "c": 21}]


def test_call_rules_recipe(recipe: Callable[[str], ModuleType]) -> None:
    recipe("case_insensitive_rules")
    scenario = Scenario.model_validate(
        {
            "id": "who",
            "domain": "demo",
            "user": {"turns": ["I'm ana.lima@example.com"]},
            "criteria": {
                "call_rules": "case-insensitive",
                "gold_actions": [
                    {"tool": "find_customer_by_email", "args": {"email": "ana.lima@example.com"}}
                ],
            },
        }
    )
    tools = get_domain("demo").tools()
    shouted = ToolCall(
        id="c1", name="find_customer_by_email", arguments={"email": "Ana.Lima@Example.com "}
    )
    other = ToolCall(id="c2", name="find_customer_by_email", arguments={"email": "bo@x.org"})
    assert match_gold([shouted, other], scenario, tools) == [0, -1]
    plain = scenario.model_copy(
        update={"criteria": scenario.criteria.model_copy(update={"call_rules": None})}
    )
    assert match_gold([shouted], plain, tools) == [-1]


def test_judge_recipe(recipe: Callable[[str], ModuleType]) -> None:
    polite_judge = recipe("polite_judge")
    recipe("canned_provider")
    suite = polite_judge.PoliteSuite("polite-quickstart", load_suite("quickstart").scenarios)
    oracle = sessionproof.run_suite(suite, "oracle")
    assert len(oracle.sessions) == 4
    for session in oracle.sessions:
        assert session.outcome is not None
        verdicts = {c.name: c.passed for c in session.outcome.criteria}
        assert verdicts.pop("polite") is False
        assert all(verdicts.values())  # the generic criteria pass: only politeness fails
        assert session.verdict is False
    thanks = sessionproof.run_suite(suite, "canned:Thank you for asking!", limit=1)
    (session,) = thanks.sessions
    assert session.outcome is not None
    assert {c.name: c.passed for c in session.outcome.criteria}["polite"] is True


def test_metric_recipe(recipe: Callable[[str], ModuleType], tmp_path: Path) -> None:
    recipe("calls_per_success")
    try:
        store = tmp_path / "s.duckdb"
        result = sessionproof.run_suite(
            "quickstart", "oracle", arms=["baseline", "faults=3%"], store=store
        )
        sessions = list(result.sessions)
        baseline = [s for s in sessions if s.arm == "baseline"]
        assert all(s.verdict for s in baseline)
        found = metrics(result.run_id, store)
        for arm, report in found.arms.items():
            passed = [s for s in sessions if s.arm == arm and s.verdict]
            value = report.metrics["calls_per_success"]
            calls = sum(len(s.events_of(ToolCallEvent)) for s in passed)
            assert value.value == calls / len(passed) and value.n == len(passed)
        assert found.definitions["calls_per_success"].startswith("tool calls the agent made")
        crashed = baseline[0].model_copy(update={"termination": TerminationReason.infra_error})
        alone = run_metrics([crashed], {}, lambda s: get_domain(s.domain)).metrics[
            "calls_per_success"
        ]
        assert (alone.value, alone.n, alone.not_judged) == (None, 0, 1)
    finally:
        METRICS.remove("calls_per_success")


def test_motif_recipe(recipe: Callable[[str], ModuleType]) -> None:
    from sessionproof.patterns import mine
    from sessionproof.patterns._motifs import MOTIFS

    from ..patterns.motif_sessions import agent, call, session, user

    recipe("apology_motif")
    try:
        assert "write_after_apology" in MOTIFS
        sorry = [user("cancel #W1"), agent("Sorry, that failed."), call("cancel", {"id": "#W1"})]
        fine = [
            user("cancel #W1"),
            agent("Cancel #W1?"),
            user("yes"),
            call("cancel", {"id": "#W1"}),
        ]
        sessions = [session(*sorry, verdict=False, scenario=f"s{i}") for i in range(3)]
        sessions += [session(*fine, verdict=True, scenario=f"s{i}") for i in range(3)]
        found = {m.name: m for m in mine(sessions).motifs}["write_after_apology"]
        assert (found.failed, found.passed) == (3, 0)
        assert found.investment == "confirm before write" and found.control == "within-scenario"
    finally:
        MOTIFS.remove("write_after_apology")
