"""`sessionproof patterns` on runs and files; the known injected cause; broken input."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sessionproof.cli import main
from sessionproof.cli._internal import app

runner = CliRunner()
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "tau"
TOOL = "return_delivered_order_items"
FAULT = f"faults=rate_limited:25%@{TOOL}"


def _run(store: Path, *args: str) -> str:
    result = runner.invoke(app, ["run", "--json", "--store", str(store), *args])
    assert result.exit_code == 0, result.output
    return str(json.loads(result.stdout)["run_id"])


def _patterns(*args: str) -> dict[str, object]:
    result = runner.invoke(app, ["patterns", *args, "--json"])
    assert result.exit_code == 0, result.output
    out: dict[str, object] = json.loads(result.stdout)
    return out


@pytest.mark.slow
def test_known_injected_cause_is_the_top_finding_and_the_guard_removes_it(tmp_path: Path) -> None:
    store = tmp_path / "s.duckdb"
    rid = _run(
        store,
        "--suite",
        "tau2-retail",
        "--model",
        "oracle",
        "--trials",
        "4",
        "--seed",
        "5",
        "--limit",
        "40",
        "--arm",
        FAULT,
        "--arm",
        f"{FAULT} guard",
    )
    out = _patterns(rid, "--store", str(store))
    assert out["arm"] == FAULT
    findings = out["findings"]
    assert isinstance(findings, list) and findings
    top = findings[0]
    assert TOOL in top["pattern"] and "rate_limited" in top["pattern"]
    assert top["q_value"] < 0.05 and top["stratified"] is True
    assert "guard: retry" in top["advice"] and "Retry-After" in top["advice"]
    guarded = top["guarded_arm"]
    assert guarded["arm"] == f"{FAULT} guard" and guarded["still_a_finding"] is False
    assert guarded["failed_with_pattern"] < top["fail_support"]
    arms = out["arms"]
    assert isinstance(arms, dict)
    assert not any(TOOL in f and "rate_limited" in f for f in arms[f"{FAULT} guard"]["findings"])
    # The first divergence of the faulted sessions is the refused call itself.
    precursors = out["precursors"]
    assert isinstance(precursors, list)
    assert any(TOOL in p["pattern"] and "rate_limited" in p["pattern"] for p in precursors[:3])
    risk = out["risk"]
    assert isinstance(risk, dict)
    assert set(risk["cv_auc_by_prefix"]) == set(risk["baseline_auc_by_prefix"])


@pytest.mark.slow
def test_real_trajectory_file_mines_cleanly(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    shutil.copy(FIXTURES / "gpt-4.1_airline_default_gpt-4.1_1trials.json", path)
    out = _patterns(str(path))
    assert out["sessions"] == 20 and out["failures"] == 10
    findings = out["findings"]
    assert isinstance(findings, list) and all(f["stratified"] for f in findings)
    # One trial per task: no scenario holds both outcomes, so nothing is claimed within
    # scenario; the pooled list is there, marked unstratified.
    assert out["informative_strata"] == 0 and not findings
    exploratory = out["exploratory"]
    assert isinstance(exploratory, list) and exploratory
    assert not any(f["stratified"] for f in exploratory)
    assert isinstance(out["risk"], dict) and isinstance(out["risk"]["cv_auc_by_prefix"], dict)


def test_a_run_with_no_failures_has_nothing_to_contrast(tmp_path: Path) -> None:
    store = tmp_path / "s.duckdb"
    rid = _run(store, "--model", "oracle", "--limit", "3")
    out = _patterns(rid, "--store", str(store))
    assert out["findings"] == [] and "nothing to contrast" in str(out["note"])
    text = runner.invoke(app, ["patterns", rid, "--store", str(store)])
    assert text.exit_code == 0 and "nothing to contrast" in text.stdout


def test_broken_input_is_one_line(tmp_path: Path) -> None:
    store = tmp_path / "s.duckdb"
    _run(store, "--model", "oracle", "--limit", "1")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    for args in (
        ["no-such-run", "--store", str(store)],
        [str(tmp_path / "missing.json")],
        [str(bad)],
        ["no-such-run", "--store", str(tmp_path / "nothing.duckdb")],
    ):
        result = runner.invoke(app, ["patterns", *args])
        assert result.exit_code != 0
        assert "Traceback" not in result.output
        assert not isinstance(result.exception, (AttributeError, TypeError, KeyError))


def test_an_empty_run_and_a_run_without_passes_have_nothing_to_contrast(tmp_path: Path) -> None:
    from sessionproof.patterns import mine
    from sessionproof.store import Store

    store = tmp_path / "s.duckdb"
    # Every tool call refused: the tasks that need a tool fail, the one that does not passes,
    # so no scenario holds both outcomes.
    rid = _run(store, "--model", "oracle", "--limit", "3", "--faults", "rate_limited:100%")
    out = _patterns(rid, "--store", str(store))
    assert out["failures"] and out["failures"] != out["sessions"]
    assert out["findings"] == [] and "nothing to contrast within scenario" in str(out["note"])
    with Store.open(store, read_only=True) as db:
        failed = [s for s in db.load_sessions(rid) if s.success is False]
    assert failed
    assert "nothing to contrast" in mine(failed).note and "no passes" in mine(failed).note
    # A run recorded but killed before its first session: no sessions at all.
    with Store.open(store) as db:
        manifest = db.get_run(rid).model_copy(update={"run_id": "r-empty"})
        db.create_run(manifest)
    out = _patterns("r-empty", "--store", str(store))
    assert out["sessions"] == 0 and "nothing to contrast" in str(out["note"])
    text = runner.invoke(app, ["patterns", "r-empty", "--store", str(store)])
    assert text.exit_code == 0 and "nothing to contrast" in text.stdout
    assert "arm None" not in text.stdout


def test_more_broken_input_is_one_line(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    good = tmp_path / "t.json"
    shutil.copy(FIXTURES / "gpt-4.1_airline_default_gpt-4.1_1trials.json", good)
    no_sims = tmp_path / "none.json"
    no_sims.write_text('{"tasks": [], "simulations": []}')
    cases = [
        ([str(tmp_path / "empty.json")], ""),
        ([str(tmp_path / "list.json")], "[]"),
        ([str(tmp_path / "bom.json")], "\ufeff\ufeff{"),
        ([str(good), "--granularity", "letters"], None),
        ([str(good), "--arm", "no-such-arm"], None),
    ]
    for args, content in cases:
        if content is not None:
            Path(args[0]).write_text(content)
        # Through the console entry point, which prints a SessionproofError as one line.
        monkeypatch.setattr(sys, "argv", ["sessionproof", "patterns", *args])
        with pytest.raises(SystemExit) as ended:
            main()
        assert ended.value.code not in (0, None), args
        captured = capfd.readouterr()
        said = captured.out + captured.err
        lines = [line for line in said.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("error:"), said
        assert "Traceback" not in said
    out = _patterns(str(no_sims))
    assert out["sessions"] == 0 and "nothing to contrast" in str(out["note"])
