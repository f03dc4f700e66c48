"""The tau-bench trajectory importer, on a file derived from the shared trajectories."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sessionproof.importers import import_file
from sessionproof.suites.tau2._internal import guess_domain, import_taubench

from ..suites.tau2._data import AIRLINE_GPT, load, openai_messages


def _records() -> list[dict[str, Any]]:
    data = load(AIRLINE_GPT)
    tasks = {t["id"]: t for t in data["tasks"]}
    out = []
    for sim in data["simulations"]:
        crit = tasks[sim["task_id"]]["evaluation_criteria"]
        out.append(
            {
                "task_id": int(sim["task_id"]),
                "trial": 0,
                "reward": sim["reward_info"]["reward"],
                "info": {
                    "task": {
                        "user_id": "u",
                        "instruction": "help me",
                        "actions": [
                            {"name": a["name"], "kwargs": a["arguments"]}
                            for a in crit["actions"] or []
                        ],
                        "outputs": crit.get("communicate_info") or [],
                    },
                    "reward_info": {
                        "reward": sim["reward_info"]["reward"],
                        "info": {"r_actions": True},
                    },
                },
                "traj": openai_messages(sim["messages"]),
            }
        )
    return out


def _write(tmp_path: Path, records: Any) -> Path:
    path = tmp_path / "tb.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    return path


def test_records_become_sessions_in_the_taubench_variant(tmp_path: Path) -> None:
    records = _records()
    result = import_file(_write(tmp_path, records), "auto", run_id="r")
    assert result.format == "tau-bench" and result.domain == "taubench-airline"
    assert result.errors == [] and len(result.sessions) == 20
    for item, record in zip(result.sessions, records, strict=True):
        assert item.scenario is not None and item.scenario.domain == "taubench-airline"
        assert item.scenario.metadata["taubench_task"] == record["info"]["task"]
        assert item.reported is not None and item.reported.reward == record["reward"]
        calls = [c for m in record["traj"] for c in m.get("tool_calls") or []]
        assert [c.name for c in item.session.tool_calls()] == [c["function"]["name"] for c in calls]
    assert guess_domain(records) == "airline"


def test_a_file_cut_short_keeps_complete_records(tmp_path: Path) -> None:
    raw = json.dumps(_records()).encode()
    result = import_taubench(raw[: len(raw) // 2], source="cut", run_id="r", domain="airline")
    assert 3 <= len(result.sessions) < 20
    assert (
        result.errors[0].index == len(result.sessions) and "cut short" in result.errors[0].message
    )


@pytest.mark.parametrize(
    ("breakage", "field", "words"),
    [
        (lambda r: r["info"].pop("task"), "info.task", "missing"),
        (lambda r: r["info"]["task"].pop("instruction"), "info.task.instruction", "Field required"),
        (lambda r: r.update(reward="high"), "reward", "number"),
        (lambda r: r.update(trial=1.5), "trial", "integer"),
        (lambda r: r.update(traj={"role": "user"}), "traj", "not a list"),
        (lambda r: r["info"].update(reward_info=[1]), "info.reward_info", "object or null"),
        (
            lambda r: r["traj"].insert(0, {"role": "user", "content": 7}),
            "traj.0.content",
            "Input should be",
        ),
    ],
)
def test_a_broken_record_costs_only_itself(
    tmp_path: Path, breakage: Any, field: str, words: str
) -> None:
    records = _records()
    breakage(records[4])
    result = import_file(_write(tmp_path, records), "tau-bench", run_id="r", domain="airline")
    assert len(result.sessions) == 19
    (err,) = result.skipped
    assert err.index == 4 and err.field.startswith(field) and words in err.message


def test_unknown_tools_and_bad_arguments_are_flagged_not_fatal(tmp_path: Path) -> None:
    records = _records()
    call = next(c for m in records[0]["traj"] for c in m.get("tool_calls") or [])
    call["function"]["name"] = "warp_drive"
    call2 = next(c for m in records[1]["traj"] for c in m.get("tool_calls") or [])
    call2["function"]["arguments"] = "{'single': 'quotes'}"
    result = import_file(_write(tmp_path, records), "tau-bench", run_id="r", domain="airline")
    assert len(result.sessions) == 20 and result.skipped == []
    assert {e.index for e in result.errors} == {0, 1}
    assert any("warp_drive" in e.message for e in result.errors)
    assert any("not a JSON object" in e.message for e in result.errors)


def test_no_domain_and_no_telling_tools_is_a_file_error(tmp_path: Path) -> None:
    records = [{"task_id": 1, "info": {"task": {"instruction": "hi"}}, "traj": []}]
    result = import_file(_write(tmp_path, records), "tau-bench", run_id="r")
    assert result.sessions == [] and "cannot tell the domain" in result.errors[0].message


@pytest.mark.parametrize(
    ("where", "value"),
    [("traj", 2**31), ("actions", 5), ("tool_calls", 7), ("info", 3), ("function", 1.5)],
)
def test_guessing_the_domain_survives_fields_of_the_wrong_type(where: str, value: Any) -> None:
    records = _records()
    first = records[0]
    if where == "traj":
        first["traj"] = value
    elif where == "actions":
        first["info"]["task"]["actions"] = value
    elif where == "info":
        first["info"] = value
    else:
        call = next(m for m in first["traj"] if m.get("tool_calls"))
        if where == "tool_calls":
            call["tool_calls"] = value
        else:
            call["tool_calls"][0]["function"] = value
    assert guess_domain(records) == "airline"
    result = import_taubench(json.dumps(records).encode(), source="f", run_id="r")
    assert len(result.sessions) == len(records) - 1
    assert {e.index for e in result.errors if e.fatal} == {0}


def test_a_reward_beyond_a_float_costs_only_its_record() -> None:
    records = _records()
    records[3]["reward"] = 10**400
    result = import_taubench(json.dumps(records).encode(), source="f", run_id="r")
    assert len(result.sessions) == len(records) - 1
    assert [(e.index, e.field) for e in result.errors] == [(3, "reward")]


def test_an_empty_instruction_costs_only_its_record() -> None:
    records = _records()
    records[2]["info"]["task"]["instruction"] = ""
    result = import_taubench(json.dumps(records).encode(), source="f", run_id="r")
    assert len(result.sessions) == len(records) - 1
    assert [(e.index, e.field) for e in result.errors] == [(2, "info.task.instruction")]
