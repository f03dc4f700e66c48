"""The tau2 results importer, on the shared trajectories and on broken copies of them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sessionproof.importers import import_file
from sessionproof.records import EventKind
from sessionproof.suites._score import score_transcripts
from sessionproof.suites.tau2._internal import import_tau2

from ..suites.tau2._data import AIRLINE_GPT, RETAIL_GPT, TRAJECTORIES, load


def _write(tmp_path: Path, data: Any, name: str = "f.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_every_message_becomes_an_event_in_order() -> None:
    for path in TRAJECTORIES:
        data = load(path)
        result = import_file(path, "tau2", run_id="r")
        assert result.errors == [] and len(result.sessions) == len(data["simulations"])
        for item, sim in zip(result.sessions, data["simulations"], strict=True):
            events = item.session.events
            assert [e.seq for e in events] == list(range(len(events)))
            assert events[-1].kind is EventKind.end
            calls = [c for m in sim["messages"] for c in m.get("tool_calls") or []]
            got = item.session.tool_calls()
            assert [(c.name, c.arguments) for c in got] == [
                (c["name"], c["arguments"]) for c in calls
            ]
            results = item.session.tool_results()
            tools = [m for m in sim["messages"] if m["role"] == "tool"]
            assert [r.output for r in results] == [m["content"] for m in tools]
            assert [r.error_class is not None for r in results] == [bool(m["error"]) for m in tools]
            users = [m for m in sim["messages"] if m["role"] == "user"]
            assert max(e.turn for e in events) == len(users) - 1
            assert item.scenario is not None and item.scenario.id == sim["task_id"]
            assert (
                item.reported is not None and item.reported.reward == sim["reward_info"]["reward"]
            )


def test_a_file_cut_short_keeps_every_complete_simulation() -> None:
    raw = AIRLINE_GPT.read_bytes()
    result = import_tau2(raw[: int(len(raw) * 0.6)], source="cut", run_id="r")
    assert 5 <= len(result.sessions) < 20
    (err,) = result.errors
    assert err.field == "simulations" and err.index == len(result.sessions)
    assert "cut short" in err.message and "complete simulations" in err.message


@pytest.mark.parametrize(
    ("breakage", "field", "words"),
    [
        (lambda s: s.pop("messages"), "messages", "Field required"),
        (lambda s: s.update(trial="first"), "trial", "valid integer"),
        (
            lambda s: s.update(messages=[{"role": "robot", "content": "beep"}]),
            "messages.0.role",
            "Input should be",
        ),
        (lambda s: s.update(task_id="no-such-task"), "task_id", "not in the file"),
        (
            lambda s: [m.pop("id") for m in s["messages"] if m["role"] == "tool"][:1],
            "id",
            "without the id",
        ),
    ],
)
def test_a_broken_simulation_costs_only_itself(
    tmp_path: Path, breakage: Any, field: str, words: str
) -> None:
    data = load(AIRLINE_GPT)
    breakage(data["simulations"][2])
    result = import_file(_write(tmp_path, data), "tau2", run_id="r")
    assert len(result.sessions) == 19
    (err,) = result.skipped
    assert err.index == 2 and err.field.endswith(field) and words in err.message
    assert str(err).startswith("record #2")


def test_unknown_tools_and_unparsable_arguments_are_kept_and_flagged(tmp_path: Path) -> None:
    data = load(RETAIL_GPT)
    calls = [c for m in data["simulations"][0]["messages"] for c in m.get("tool_calls") or []]
    calls[0]["name"] = "teleport_order"
    calls[1]["arguments"] = '{"user_id": "isabella_lopez_6490"'  # not JSON: cut short
    path = _write(tmp_path, data)
    result = import_file(path, "auto", run_id="r")
    assert len(result.sessions) == 40 and result.skipped == []
    fields = {e.field.rsplit(".", 1)[-1]: e for e in result.errors}
    assert set(fields) == {"name", "arguments"} and not any(e.fatal for e in result.errors)
    assert "unknown tool 'teleport_order'" in fields["name"].message
    assert "not a JSON object" in fields["arguments"].message
    call = result.sessions[0].session.tool_calls()[1]
    assert (
        call.arguments is None and call.raw_arguments and "invalid JSON" in (call.parse_error or "")
    )
    # Neither call writes: the verdicts still agree with the file's.
    report = score_transcripts(path, "tau2", None, None)
    assert report.agreement_db.match == report.agreement_db.total == 40


def test_a_broken_task_skips_its_simulations_with_the_reason(tmp_path: Path) -> None:
    data = load(AIRLINE_GPT)
    victim = data["simulations"][0]["task_id"]
    task = next(t for t in data["tasks"] if t["id"] == victim)
    del task["user_scenario"]
    result = import_file(_write(tmp_path, data), "tau2", run_id="r")
    assert len(result.sessions) == 19
    skipped = result.skipped
    assert len(skipped) == 1 and skipped[0].index == 0 and "user_scenario" in skipped[0].message
    assert any(e.field.startswith("tasks.") and not e.fatal for e in result.errors)


def test_without_tasks_sessions_import_ungraded(tmp_path: Path) -> None:
    data = load(AIRLINE_GPT)
    del data["tasks"]
    path = _write(tmp_path, data)
    result = import_file(path, "tau2", run_id="r")
    assert len(result.sessions) == 20 and all(s.scenario is None for s in result.sessions)
    report = score_transcripts(path, "tau2", None, None)
    assert report.graded == 0 and report.agreement_reward.total == 0


def test_a_file_naming_no_domain_needs_one(tmp_path: Path) -> None:
    data = load(AIRLINE_GPT)
    del data["info"]["environment_info"]
    path = _write(tmp_path, data)
    result = import_file(path, "tau2", run_id="r")
    assert result.sessions == [] and "domain" in result.errors[0].message
    assert len(import_file(path, "tau2", run_id="r", domain="airline").sessions) == 20


def test_wrong_top_level_type_is_a_clear_error(tmp_path: Path) -> None:
    result = import_file(_write(tmp_path, {"simulations": "none"}), "tau2", run_id="r")
    assert result.sessions == [] and result.errors[0].field == "simulations"


def test_a_domain_other_than_the_files_is_warned_about() -> None:
    result = import_file(AIRLINE_GPT, "tau2", run_id="r", domain="retail")
    warning = next(e for e in result.errors if e.field == "info.environment_info.domain_name")
    assert not warning.fatal and "'airline'" in warning.message and result.domain == "retail"
    # Its airline calls are unknown to retail: flagged, not fatal.
    assert len(result.sessions) == 20 and result.skipped == []
    assert any("unknown tool 'get_reservation_details'" in e.message for e in result.errors)


@pytest.mark.parametrize("db_match", [2**63, "yes", [True], {"x": 1}])
def test_a_reported_db_match_that_is_not_a_bool_is_a_warning(db_match: Any) -> None:
    data = load(AIRLINE_GPT)
    data["simulations"][2]["reward_info"]["db_check"] = {"db_match": db_match}
    result = import_tau2(json.dumps(data).encode(), source="f", run_id="r")
    assert len(result.sessions) == len(data["simulations"])
    third = result.sessions[2].reported
    assert third is not None and third.db_match is None
    assert third.reward == data["simulations"][2]["reward_info"]["reward"]
    (warning,) = result.errors
    assert (warning.index, warning.field, warning.fatal) == (
        2,
        "reward_info.db_check.db_match",
        False,
    )


def test_a_reported_reward_beyond_a_float_is_a_warning() -> None:
    data = load(AIRLINE_GPT)
    data["simulations"][1]["reward_info"]["reward"] = 10**400
    result = import_tau2(json.dumps(data).encode(), source="f", run_id="r")
    assert len(result.sessions) == len(data["simulations"])
    second = result.sessions[1].reported
    assert second is not None and second.reward is None and second.success is None
    assert [(e.index, e.field, e.fatal) for e in result.errors] == [
        (1, "reward_info.reward", False)
    ]
