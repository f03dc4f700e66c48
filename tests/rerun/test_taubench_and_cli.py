"""A tau-bench file reruns under tau-bench's reward; `sessionproof rerun` end to end."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sessionproof.cli._internal import app

from ._files import AIRLINE_GPT, RETAIL_GPT, load

runner = CliRunner()


def _taubench_file(src: Path, out: Path, n: int) -> list[dict[str, Any]]:
    data = load(src)
    tasks = {t["id"]: t for t in data["tasks"]}
    records = []
    for sim in data["simulations"][:n]:
        crit = tasks[sim["task_id"]]["evaluation_criteria"]
        records.append(
            {
                "task_id": int(sim["task_id"]),
                "trial": 0,
                "reward": sim["reward_info"]["reward"],
                "info": {
                    "task": {
                        "user_id": "u",
                        "instruction": json.dumps(
                            tasks[sim["task_id"]]["user_scenario"]["instructions"]
                        ),
                        "actions": [
                            {"name": a["name"], "kwargs": a["arguments"]}
                            for a in crit["actions"] or []
                        ],
                        "outputs": list(crit.get("communicate_info") or []),
                    },
                    "reward_info": {"reward": sim["reward_info"]["reward"], "info": {}},
                },
                "traj": [],
            }
        )
    out.write_text(json.dumps(records), encoding="utf-8")
    return records


def test_taubench_file_reruns_under_taubench_reward(tmp_path: Path) -> None:
    from sessionproof.rerun._internal import rerun

    records = _taubench_file(RETAIL_GPT, tmp_path / "tb.json", 8)
    report = rerun(tmp_path / "tb.json", "oracle", store_path=tmp_path / "s")
    assert report.format == "tau-bench" and report.skipped == []
    assert len(report.transcripts) == len(records)
    for t, record in zip(report.transcripts, records, strict=True):
        assert t.judged_by == "tau-bench"
        assert t.original == (record["reward"] == 1)
        ends_in_transfer = any(
            a["name"] == "transfer_to_human_agents" for a in record["info"]["task"]["actions"]
        )
        if not ends_in_transfer:
            # The oracle makes every gold call and states every output.
            assert t.rerun == [True], t.why


def _invoke(*args: str) -> Any:
    return runner.invoke(app, ["rerun", *args])


def test_cli_json(tmp_path: Path) -> None:
    store = str(tmp_path / "s.duckdb")
    result = _invoke(
        str(AIRLINE_GPT), "--model", "oracle", "--trials", "2", "--limit", "5",
        "--store", store, "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    recorded = {
        s["id"]: s["reward_info"]["reward"] == 1.0 for s in load(AIRLINE_GPT)["simulations"]
    }
    assert out["transcripts"] == 5 and out["skipped"] == []
    for item in out["per_transcript"]:
        assert item["original"] == recorded[item["id"]]
        assert len(item["rerun"]) == 2
    originals = [item["original"] for item in out["per_transcript"]]
    assert out["original_accuracy"] == sum(originals) / 5
    reruns = [v for item in out["per_transcript"] for v in item["rerun"]]
    assert out["rerun_accuracy"] == sum(reruns) / len(reruns)
    paired = out["paired"]
    assert paired["scenarios"] == 10  # transcripts × trials
    assert paired["rate_b"] - paired["rate_a"] == pytest.approx(paired["difference"]["estimate"])
    assert 0.0 <= paired["mcnemar_p"] <= 1.0

    runs = json.loads(runner.invoke(app, ["runs", "--store", store, "--json"]).stdout)
    (run,) = [r for r in runs if r["run_id"] == out["run_id"]]
    assert run["command"] == "rerun" and run["sessions_done"] == 10
    shown = runner.invoke(app, ["show", out["run_id"], "--store", store, "--json"])
    assert json.loads(shown.stdout)["sessions"] == 10


def test_cli_table_and_skipped_records(tmp_path: Path) -> None:
    data = load(AIRLINE_GPT)
    data["simulations"] = data["simulations"][:3]
    del data["simulations"][1]["termination_reason"]
    path = tmp_path / "two-good.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    result = _invoke(
        str(path), "--model", "python:tests.rerun.agents:silent", "--store",
        str(tmp_path / "s"),
    )  # fmt: skip
    assert result.exit_code == 1  # a record was skipped; the others were still rerun
    assert "skipped" in result.output and "termination_reason" in result.output
    for label in ("original completion", "rerun completion", "McNemar p", "paired Δ"):
        assert label in result.output
    assert data["simulations"][0]["id"][:8] in result.output


def test_cli_rejects_bad_options(tmp_path: Path) -> None:
    result = _invoke(str(AIRLINE_GPT), "--model", "oracle", "--format", "xml")
    assert result.exit_code != 0 and "format" in str(result.exception)
    result = _invoke(str(AIRLINE_GPT))
    assert result.exit_code == 2 and "--model" in result.output
