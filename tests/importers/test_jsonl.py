"""OpenAI and Anthropic JSONL chat logs, derived from the shared tau2 trajectories."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sessionproof.importers import import_file
from sessionproof.suites._score import score_transcripts

from ..suites.tau2._data import AIRLINE_GPT, anthropic_messages, load, openai_messages

CONVERT = {"openai": openai_messages, "anthropic": anthropic_messages}


def _lines(fmt: str) -> list[dict[str, Any]]:
    data = load(AIRLINE_GPT)
    tasks = {t["id"]: t for t in data["tasks"]}
    return [
        {
            "id": sim["id"],
            "domain": "airline",
            "task": tasks[sim["task_id"]],
            "outcome": {
                "reward": sim["reward_info"]["reward"],
                "db_match": sim["reward_info"]["db_check"]["db_match"],
            },
            "messages": CONVERT[fmt](sim["messages"]),
        }
        for sim in data["simulations"]
    ]


def _write(tmp_path: Path, lines: list[Any], raw: list[str] | None = None) -> Path:
    path = tmp_path / "log.jsonl"
    text = [json.dumps(line) for line in lines] + (raw or [])
    path.write_text("\n".join(text) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("fmt", ["openai", "anthropic"])
def test_logs_import_the_same_calls_and_score_like_tau2(tmp_path: Path, fmt: str) -> None:
    path = _write(tmp_path, _lines(fmt))
    result = import_file(path, "auto", run_id="r")
    assert result.format == fmt and result.errors == [] and len(result.sessions) == 20
    tau2 = import_file(AIRLINE_GPT, "tau2", run_id="r")
    for ours, ref in zip(result.sessions, tau2.sessions, strict=True):
        assert [(c.name, c.arguments) for c in ours.session.tool_calls()] == [
            (c.name, c.arguments) for c in ref.session.tool_calls()
        ]
        assert [r.output for r in ours.session.tool_results()] == [
            r.output for r in ref.session.tool_results()
        ]
    report = score_transcripts(path, fmt, None, tmp_path / "s.duckdb")
    assert report.agreement_db.match == report.agreement_db.total == 20
    assert report.agreement_reward.match == report.agreement_reward.total == 20


@pytest.mark.parametrize("fmt", ["openai", "anthropic"])
def test_broken_lines_cost_only_themselves(tmp_path: Path, fmt: str) -> None:
    lines = _lines(fmt)[:6]
    lines[1]["messages"] = "hello"  # wrong type
    del lines[2]["messages"]  # missing field
    lines[3]["outcome"] = "great"  # no verdict: kept, not judged (issue 34.15)
    lines[4]["task"] = {"nothing": "useful"}  # not a task
    path = _write(
        tmp_path, lines, raw=['{"messages": [', "[1, 2]"]
    )  # truncated JSON; not an object
    result = import_file(path, fmt, run_id="r")
    assert [s.index for s in result.sessions] == [0, 3, 5]
    assert result.sessions[1].reported is None
    (warned,) = [e for e in result.errors if not e.fatal and e.field == "outcome"]
    assert warned.index == 3 and "kept, not judged" in warned.message
    problems = {e.index: e for e in result.skipped}
    assert set(problems) == {1, 2, 4, 6, 7}
    assert problems[1].field == problems[2].field == "messages"
    assert problems[4].field == "task"
    assert "not JSON" in problems[6].message and "expected an object" in problems[7].message


def test_openai_unknown_tool_bad_arguments_and_orphan_result(tmp_path: Path) -> None:
    lines = _lines("openai")[:3]
    call = next(c for m in lines[0]["messages"] for c in m.get("tool_calls") or [])
    call["function"]["name"] = "summon_pilot"
    call["function"]["arguments"] = "[1, 2]"  # JSON, but not an object
    lines[1]["messages"].append({"role": "tool", "content": "ok"})  # answers no call id
    result = import_file(_write(tmp_path, lines), "openai", run_id="r")
    assert [s.index for s in result.sessions] == [0, 2]
    warned = [e for e in result.errors if not e.fatal]
    assert {e.field.rsplit(".", 1)[-1] for e in warned} == {"name", "arguments"}
    assert "expected a JSON object, got an array" in next(
        e.message for e in warned if e.field.endswith("arguments")
    )
    (skip,) = result.skipped
    assert skip.index == 1 and skip.field.endswith("tool_call_id")


def test_anthropic_blocks_missing_ids_and_string_input(tmp_path: Path) -> None:
    lines = _lines("anthropic")[:3]
    use = next(b for m in lines[0]["messages"] for b in m["content"] if b["type"] == "tool_use")
    use["input"] = '{"reservation_id": '  # not JSON
    result_block = next(
        b for m in lines[1]["messages"] for b in m["content"] if b["type"] == "tool_result"
    )
    del result_block["tool_use_id"]
    result = import_file(_write(tmp_path, lines), "anthropic", run_id="r")
    assert [s.index for s in result.sessions] == [0, 2]
    assert any(e.field.endswith(".input") and not e.fatal for e in result.errors)
    (skip,) = result.skipped
    assert skip.index == 1 and skip.field.endswith("tool_use_id")


def test_a_log_without_task_is_imported_but_not_graded(tmp_path: Path) -> None:
    lines = _lines("openai")[:2]
    for line in lines:
        del line["task"]
    path = _write(tmp_path, lines)
    report = score_transcripts(path, "openai", "airline", None)
    assert report.sessions == 2 and report.graded == 0 and report.session_accuracy is None


def test_a_taubench_task_in_a_log_is_judged_with_taubench_semantics(tmp_path: Path) -> None:
    line = _lines("openai")[0]
    crit = line["task"]["evaluation_criteria"]
    line["task"] = {
        "instruction": "change my flight",
        "actions": [{"name": a["name"], "kwargs": a["arguments"]} for a in crit["actions"] or []],
        "outputs": [],
    }
    result = import_file(_write(tmp_path, [line]), "openai", run_id="r")
    (item,) = result.sessions
    assert item.scenario is not None and item.scenario.domain == "taubench-airline"
    report = score_transcripts(tmp_path / "log.jsonl", "openai", None, None)
    assert report.graded == 1 and report.agreement_db.total == 1
