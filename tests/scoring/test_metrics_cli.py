"""`sessionproof show RUN_ID --metrics [--json]` on stored runs, through the CLI."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from sessionproof.cli._internal import app
from sessionproof.domains.demo._internal import load_scenarios
from sessionproof.errors import StoreError
from sessionproof.scoring import ALL_METRIC_DEFINITIONS

runner = CliRunner()
TAU = Path(__file__).resolve().parents[1] / "fixtures" / "tau"
SLOPPY = "python:tests.scoring.agents_for_metrics:sloppy"


def cli_json(*args: str) -> dict[str, Any]:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def metrics(store: Path, run_id: str) -> dict[str, Any]:
    return cli_json("show", run_id, "--store", str(store), "--metrics")


@pytest.mark.slow
def test_sloppy_agent_on_the_demo_suite(tmp_path: Path) -> None:
    store = tmp_path / "s.duckdb"
    run = cli_json("run", "--model", SLOPPY, "--store", str(store))
    out = metrics(store, str(run["run_id"]))
    assert out["scenarios"] == {"source": "suite demo", "available": len(load_scenarios())}
    assert set(ALL_METRIC_DEFINITIONS) <= set(out["definitions"])
    m = out["arms"]["baseline"]
    scenarios = {s.id: s for s in load_scenarios()}

    def gold_tools(sid: str) -> list[str]:
        return [a.tool for a in scenarios[sid].criteria.gold_actions]

    cancels = {sid for sid in scenarios if "cancel_order" in gold_tools(sid)}
    returns = {sid for sid in scenarios if "return_items" in gold_tools(sid)} - cancels
    assert cancels and returns
    failed = cancels | returns
    summary = m["summary"]
    assert summary["session_accuracy"] == run["session_accuracy"]
    assert summary["judged"] - summary["successes"] == len(failed)

    per = {s["scenario_id"]: s for s in m["survival"]["per_session"]}
    assert set(per) == set(scenarios)
    for sid, item in per.items():
        div = item["divergence"]
        tools = gold_tools(sid)
        if sid in cancels:
            # The oracle makes the gold calls in order: the first cancellation is where the
            # wrong reason leaves the path.
            assert (div["kind"], div["index"]) == ("wrong_argument", tools.index("cancel_order"))
        elif sid in returns:
            made = len(tools) - tools.count("return_items")
            assert (div["kind"], div["decision"], div["index"]) == ("missing_call", "stop", made)
        else:
            assert div is None and item["success"], sid
    classes = m["survival"]["divergence_classes"]
    assert classes == {"wrong_argument": len(cancels), "missing_call": len(returns)}
    curve = [p["survival"] for p in m["survival"]["curve"]]
    assert curve[0] == 1.0 and curve[-1] == summary["session_accuracy"]

    assert m["failure_sources"]["by_source"]["agent"] == len(failed)
    assert m["failure_sources"]["failed"] == len(failed)
    calls = m["calls"]
    wrong = sum(
        gold_tools(s).count("cancel_order") + gold_tools(s).count("return_items") for s in failed
    )
    total = sum(len(s.criteria.gold_actions) for s in scenarios.values())
    assert calls["call_validity_rate"] == 1.0
    assert (calls["gold_actions"], calls["gold_actions_matched"]) == (total, total - wrong)
    assert m["skipped"] == {} and m["scenarios_missing"] == []
    assert m["pass_at_k"] == {"1": summary["session_accuracy"]}
    assert "session_accuracy" in m["bootstrap_ci"]

    text = runner.invoke(app, ["show", str(run["run_id"]), "--store", str(store), "--metrics"])
    assert text.exit_code == 0, text.output
    for heading in (
        "session accuracy",
        "single-call accuracy",
        "call validity",
        "error recovery",
        "survival by decision depth",
        "success by gold writes needed",
        "first divergence",
        "failure sources",
        "wrong_argument",
    ):
        assert heading in text.output, heading
    for name in ALL_METRIC_DEFINITIONS:
        assert f"{name}:" in text.output, name


def test_arms_are_reported_apart(tmp_path: Path) -> None:
    store = tmp_path / "s.duckdb"
    fault = "faults=auth_expired:100%@cancel_order"
    run = cli_json(
        "run", "--model", "oracle", "--limit", "4", "--arm", "baseline", "--arm", fault,
        "--store", str(store),
    )  # fmt: skip
    out = metrics(store, str(run["run_id"]))
    assert list(out["arms"]) == ["baseline", fault]
    base, faulted = out["arms"]["baseline"], out["arms"][fault]
    assert base["summary"]["session_accuracy"] == 1.0
    cancels = [
        s
        for s in load_scenarios()[:4]
        if any(a.tool == "cancel_order" for a in s.criteria.gold_actions)
    ]
    assert faulted["summary"]["judged"] - faulted["summary"]["successes"] == len(cancels)
    assert faulted["failure_sources"]["by_source"]["environment"] == len(cancels)
    assert faulted["error_recovery"]["recovery_by_class"]["auth_expired"]["failures"] > 0
    assert base["error_recovery"]["failures"] == 0


def test_suite_file_gone_skips_what_needs_scenarios(tmp_path: Path) -> None:
    store = tmp_path / "s.duckdb"
    suite = tmp_path / "two.yaml"
    picked = [
        s for s in load_scenarios() if s.id in ("cancel-pending-by-mistake", "order-status-shipped")
    ]
    suite.write_text(
        yaml.safe_dump([s.model_dump(mode="json", exclude_defaults=True) for s in picked])
    )
    run = cli_json("run", "--suite", str(suite), "--model", SLOPPY, "--store", str(store))
    with_file = metrics(store, str(run["run_id"]))["arms"]["baseline"]
    assert with_file["survival"]["sessions"] == 2
    suite.unlink()
    out = metrics(store, str(run["run_id"]))
    assert out["scenarios"]["available"] == 0
    assert "cannot be loaded" in out["scenarios"]["source"]
    m = out["arms"]["baseline"]
    assert m["calls"] is None and m["survival"] is None
    assert {"single_call_accuracy", "survival_by_depth", "failure_source"} <= set(m["skipped"])
    assert m["summary"] == with_file["summary"]
    # The failed session cannot be charged to the agent without its scenario.
    assert m["failure_sources"]["undetermined"] == m["failure_sources"]["failed"] == 1
    text = runner.invoke(app, ["show", str(run["run_id"]), "--store", str(store), "--metrics"])
    assert text.exit_code == 0 and "skipped" in text.output


@pytest.mark.slow
def test_scored_transcripts_reread_their_file(tmp_path: Path) -> None:
    store = tmp_path / "s.duckdb"
    source = tmp_path / "retail.json"
    shutil.copy(TAU / "gpt-4.1_retail_defautl_gpt-4.1_1trials.json", source)
    scored = cli_json("score", str(source), "--store", str(store))
    out = metrics(store, str(scored["run_id"]))
    assert out["scenarios"]["source"] == f"re-read from {source}"
    m = out["arms"]["baseline"]
    assert m["summary"]["session_accuracy"] == scored["session_accuracy"]
    assert m["survival"]["sessions"] == m["sessions"] == 40
    assert m["calls"]["call_validity_rate"] == 1.0
    source.rename(tmp_path / "moved.json")
    gone = metrics(store, str(scored["run_id"]))
    assert "no longer there" in gone["scenarios"]["source"]
    assert gone["arms"]["baseline"]["survival"] is None


def test_broken_inputs(tmp_path: Path) -> None:
    store = tmp_path / "s.duckdb"
    missing = runner.invoke(app, ["show", "r1", "--store", str(store), "--metrics"])
    assert missing.exit_code != 0 and isinstance(missing.exception, StoreError)
    cli_json("run", "--model", "oracle", "--limit", "1", "--store", str(store))
    unknown = runner.invoke(app, ["show", "no-such-run", "--store", str(store), "--metrics"])
    assert unknown.exit_code != 0 and isinstance(unknown.exception, StoreError)
    assert "no-such-run" in str(unknown.exception)
