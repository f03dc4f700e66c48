"""`export RUN_ID --format tau2`: a tau2-bench results file, checked against the facts of
tau2's own Pydantic models (a JSON Schema written here from them), and read back by `score
--format tau2` with the verdicts of the run it came from.

tau2's models (tau2-bench a2c0247, `data_model/simulation.py`, `message.py`): `Results` needs
`info` and `tasks`; `Info` needs `git_commit`, `num_trials`, `max_steps`, `max_errors`,
`user_info` and `agent_info` (each with `implementation`) and `environment_info` (with
`domain_name` and `policy`); `SimulationRun` needs `id`, `task_id`, `start_time`,
`end_time`, `duration` and a `termination_reason` of its enum; `RewardInfo` needs `reward`;
a message is `system`, `user`, `assistant` (content and/or `tool_calls` of `{id, name,
arguments}`) or `tool` (`id`, `content`, `error`). tau2's replay also needs each call's tool
message right after the message that made it, in the calls' order.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import Result
from typer.testing import CliRunner

from sessionproof import runs
from sessionproof.cli._internal import app
from sessionproof.errors import SessionproofError
from sessionproof.runs import RunConfig
from sessionproof.store import Store
from sessionproof.suites._score import score_transcripts

runner = CliRunner()
pytestmark = pytest.mark.slow  # each test runs whole suites or runs (seconds)

_TERMINATIONS = [
    "user_stop",
    "agent_stop",
    "max_steps",
    "timeout",
    "too_many_errors",
    "agent_error",
    "user_error",
    "infrastructure_error",
    "context_window_exceeded",
    "unexpected_error",
]
_INFO = {"type": "object", "required": ["implementation"]}
_CALL = {
    "type": "object",
    "required": ["id", "name", "arguments"],
    "properties": {"arguments": {"type": "object"}, "name": {"type": "string"}},
}
_MESSAGE = {
    "type": "object",
    "required": ["role"],
    "properties": {
        "role": {"enum": ["system", "user", "assistant", "tool"]},
        "content": {"type": ["string", "null"]},
        "tool_calls": {"type": ["array", "null"], "items": _CALL},
        "error": {"type": "boolean"},
        "id": {"type": "string"},
    },
    "if": {"properties": {"role": {"const": "tool"}}},
    "then": {"required": ["id", "content", "error"]},
}
_REWARD = {
    "type": ["object", "null"],
    "required": ["reward"],
    "properties": {
        "reward": {"type": "number"},
        "db_check": {
            "type": "object",
            "required": ["db_match", "db_reward"],
            "properties": {"db_match": {"type": "boolean"}},
        },
        "reward_basis": {
            "type": "array",
            "items": {"enum": ["DB", "ENV_ASSERTION", "NL_ASSERTION", "ACTION", "COMMUNICATE"]},
        },
    },
}
RESULTS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["info", "tasks", "simulations"],
    "properties": {
        "timestamp": {"type": ["string", "null"]},
        "info": {
            "type": "object",
            "required": [
                "git_commit",
                "num_trials",
                "max_steps",
                "max_errors",
                "user_info",
                "agent_info",
                "environment_info",
            ],
            "properties": {
                "num_trials": {"type": "integer"},
                "max_steps": {"type": "integer"},
                "max_errors": {"type": "integer"},
                "user_info": _INFO,
                "agent_info": _INFO,
                "environment_info": {
                    "type": "object",
                    "required": ["domain_name", "policy"],
                    "properties": {"domain_name": {"type": "string"}},
                },
            },
        },
        "tasks": {
            "type": "array",
            "items": {"type": "object", "required": ["id", "user_scenario"]},
        },
        "simulations": {
            "type": "array",
            "items": {
                "type": "object",
                "required": [
                    "id",
                    "task_id",
                    "start_time",
                    "end_time",
                    "duration",
                    "termination_reason",
                ],
                "properties": {
                    "termination_reason": {"enum": _TERMINATIONS},
                    "duration": {"type": "number"},
                    "trial": {"type": "integer"},
                    "reward_info": _REWARD,
                    "messages": {"type": "array", "items": _MESSAGE},
                },
            },
        },
    },
}


def _error(done: Result) -> str:
    """The one-line error a failed command stops with (`main` prints it as `error: ...`)."""
    assert done.exit_code != 0
    assert isinstance(done.exception, SessionproofError), done.output
    message = str(done.exception)
    assert "\n" not in message
    return message


def _replayable(messages: list[dict[str, Any]]) -> None:
    """tau2's replay: every call's tool message follows at once, in the calls' order."""
    i = 0
    while i < len(messages):
        message = messages[i]
        assert message["role"] != "tool", f"a tool message with no call before it (#{i})"
        i += 1
        for call in message.get("tool_calls") or []:
            assert messages[i]["role"] == "tool"
            assert messages[i]["id"] == call["id"]
            i += 1


_FAULTS = "faults=25%"


@pytest.fixture(scope="module", params=["retail", "airline"])
def exported(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[str, Path, Path, str]:
    """A 25-task oracle run of a domain under two arms, its faulted arm exported."""
    domain = request.param
    folder = tmp_path_factory.mktemp(f"export-{domain}")
    store = folder / "s.duckdb"
    report = runs.run(
        RunConfig(
            suite=f"tau2-{domain}",
            model="oracle",
            limit=25,
            arms=["baseline", _FAULTS],
            seed=5,
            store=store,
        )
    )
    out = folder / "results.json"
    argv = ["export", report.run_id, "--format", "tau2", "-o", str(out), "--store", str(store)]
    done = runner.invoke(app, [*argv, "--arm", _FAULTS])
    assert done.exit_code == 0, done.output
    return domain, store, out, report.run_id


def test_the_file_has_the_shape_of_tau2_results(exported: tuple[str, Path, Path, str]) -> None:
    domain, store, out, run_id = exported
    data = json.loads(out.read_text())
    jsonschema.validate(data, RESULTS_SCHEMA)
    assert data["info"]["environment_info"]["domain_name"] == domain
    with Store.open(store, read_only=True) as db:
        sessions = [s for s in db.load_sessions(run_id) if s.arm == _FAULTS]
    assert len(data["simulations"]) == len(sessions) == 25
    assert {t["id"] for t in data["tasks"]} == {s.scenario_id for s in sessions}
    for sim in data["simulations"]:
        _replayable(sim["messages"])
    # Faults were injected: some calls never reached the domain and are named, not replayed.
    left_out = [c for sim in data["simulations"] for c in sim["info"].get("calls_left_out", [])]
    assert left_out
    assert {sim["info"]["arm"] for sim in data["simulations"]} == {_FAULTS}


def test_every_verdict_is_in_the_file_and_none_is_invented(
    exported: tuple[str, Path, Path, str],
) -> None:
    _, store, out, run_id = exported
    data = json.loads(out.read_text())
    with Store.open(store, read_only=True) as db:
        sessions = {s.session_id: s for s in db.load_sessions(run_id) if s.arm == _FAULTS}
    assert len(sessions) == len(data["simulations"])
    seen = {True: 0, False: 0, None: 0}
    for sim in data["simulations"]:
        session = sessions[sim["id"]]
        criteria = session.outcome.criteria if session.outcome is not None else []
        failed = any(c.passed is False for c in criteria)
        unevaluated = not failed and any(c.passed is None for c in criteria)
        verdict = None if unevaluated else (False if failed else session.verdict)
        seen[verdict] += 1
        if verdict is None:
            assert sim["reward_info"] is None
            assert sim["info"]["not_judged"]
        else:
            assert sim["reward_info"]["reward"] == (1.0 if verdict else 0.0)
    assert seen[True] and seen[False]  # both verdicts occur: the check is not vacuous


def test_score_reads_the_export_back_with_the_same_verdicts(
    exported: tuple[str, Path, Path, str], tmp_path: Path
) -> None:
    domain, store, out, run_id = exported
    report = score_transcripts(out, "tau2", domain, tmp_path / "back.duckdb")
    assert report.errors == []
    assert report.sessions == 25
    with Store.open(store, read_only=True) as db:
        original = {s.session_id: s.verdict for s in db.load_sessions(run_id)}
    judged = {s.session_id: s.success for s in report.scores if s.reward is not None}
    assert judged
    for sid, success in judged.items():
        assert original[sid] is success, sid
    # The file's own rewards (the run's verdicts) agree with the re-grade on every session
    # that has one.
    assert report.agreement_reward.match == report.agreement_reward.total > 0


def test_broken_input_is_one_clear_line(
    exported: tuple[str, Path, Path, str], tmp_path: Path
) -> None:
    _, store, _, run_id = exported
    unknown = runner.invoke(
        app,
        [
            "export",
            "r-nope",
            "--format",
            "tau2",
            "-o",
            str(tmp_path / "x.json"),
            "--store",
            str(store),
        ],
    )
    assert "no run 'r-nope'" in _error(unknown)
    no_output = runner.invoke(app, ["export", run_id, "--format", "tau2", "--store", str(store)])
    assert "-o FILE" in _error(no_output)
    two_arms = runner.invoke(
        app,
        [
            "export",
            run_id,
            "--format",
            "tau2",
            "-o",
            str(tmp_path / "z.json"),
            "--store",
            str(store),
        ],
    )
    assert "export each with --arm ARM" in _error(two_arms)
    no_arm = runner.invoke(
        app,
        [
            "export",
            run_id,
            "--format",
            "tau2",
            "-o",
            str(tmp_path / "z.json"),
            "--store",
            str(store),
            "--arm",
            "nope",
        ],
    )
    assert "has arms baseline, faults=25%" in _error(no_arm)
    not_written = runner.invoke(
        app,
        [
            "export",
            run_id,
            "--format",
            "tau-bench",
            "-o",
            str(tmp_path / "y.json"),
            "--store",
            str(store),
        ],
    )
    assert "not a format a run can be exported to" in _error(not_written)
    assert not any(tmp_path.iterdir())  # nothing written, not even a partial file


def test_a_run_of_another_suite_is_refused(tmp_path: Path) -> None:
    store = tmp_path / "demo.duckdb"
    report = runs.run(RunConfig(suite="demo", model="oracle", limit=2, store=store))
    out = tmp_path / "t.json"
    done = runner.invoke(
        app, ["export", report.run_id, "--format", "tau2", "-o", str(out), "--store", str(store)]
    )
    assert "is not a tau2 task" in _error(done)
    assert not out.exists()


def test_the_user_sides_own_calls_become_tau2_user_tool_calls(
    exported: tuple[str, Path, Path, str],
) -> None:
    """Dual control: a call the user side made on its own tools (events `user_tool_call` and
    `user_tool_result`) is a user message with `tool_calls`, then its tool message, both with
    requestor `user`; one with no reply is left out and named."""
    from types import SimpleNamespace

    from sessionproof.records import ToolCall, ToolResult
    from sessionproof.suites.tau2._export import simulation_messages

    _, store, _, run_id = exported
    with Store.open(store, read_only=True) as db:
        session = next(s for s in db.load_sessions(run_id) if s.arm == "baseline")
    toggle = ToolCall(id="u-1", name="toggle_airplane_mode", arguments={})
    lost = ToolCall(id="u-2", name="run_speed_test", arguments={})
    answer = ToolResult(call_id="u-1", name=toggle.name, output="Airplane mode is now OFF")
    at = session.events[0].t_wall
    extra = [
        SimpleNamespace(kind="user_tool_call", payload=toggle, t_wall=at),
        SimpleNamespace(kind="user_tool_result", payload=answer, t_wall=at),
        SimpleNamespace(kind="user_tool_call", payload=lost, t_wall=at),
    ]
    mixed = session.model_construct(
        **{**dict(session), "events": [session.events[0], *extra, *session.events[1:]]}
    )
    before, _, _ = simulation_messages(session)
    messages, left_out, _ = simulation_messages(mixed)
    assert messages[0] == before[0]
    assert messages[1]["role"] == "user"
    assert messages[1]["tool_calls"] == [
        {"id": "u-1", "name": "toggle_airplane_mode", "arguments": {}, "requestor": "user"}
    ]
    assert messages[2]["role"] == "tool" and messages[2]["requestor"] == "user"
    assert messages[2]["content"] == "Airplane mode is now OFF"
    assert messages[3:] == before[1:]
    assert left_out == ["u-2 (run_speed_test): no reply"]
    _replayable(messages)


def test_an_action_only_a_left_out_call_made_is_named_not_silently_lost(
    tmp_path: Path,
) -> None:
    """tau2's action check reads the calls in the messages, and a call the domain never ran
    is left out of them (tau2's replay would run it). In tau2-banking's faulted arm the
    oracle's unlock in task_033 is stopped by a fault: sessionproof counts the action (the
    agent made the call), tau2's re-grade cannot; the export names it, in the simulation and
    in the file, and every action the verdict counted is in the messages or named."""
    store = tmp_path / "b.duckdb"
    report = runs.run(
        RunConfig(suite="tau2-banking", model="oracle", limit=34, arms=["faults=20%"], store=store)
    )
    out = tmp_path / "b.json"
    argv = ["export", report.run_id, "--format", "tau2", "-o", str(out), "--store", str(store)]
    done = runner.invoke(app, argv)
    assert done.exit_code == 0, done.output
    doc = json.loads(out.read_text())
    sims = {s["task_id"]: s for s in doc["simulations"]}
    named = sims["task_033"]["info"]["actions_not_carried"]
    assert named == ["033_2 (unlock_discoverable_agent_tool): made only by left-out oracle-0-2"]
    assert (
        "oracle-0-2 (unlock_discoverable_agent_tool)"
        in sims["task_033"]["info"]["calls_left_out"][0]
    )
    assert sims["task_033"]["reward_info"]["reward"] == 1.0
    listed = doc["info"]["sessionproof"]["actions_not_carried"]
    assert sims["task_033"]["id"] in listed
    assert "action check" in doc["info"]["sessionproof"]["actions_not_carried_why"]
    tasks = {t["id"]: t for t in doc["tasks"]}
    for task_id, sim in sims.items():
        criteria = tasks[task_id]["evaluation_criteria"] or {}
        verdict = {c["name"]: c["passed"] for c in sim["reward_info"]["info"]["sessionproof"]}
        if verdict.get("action") is not True:
            continue
        calls = [c for m in sim["messages"] for c in m.get("tool_calls") or []]
        labels = [n.split(" ", 1)[0] for n in sim["info"].get("actions_not_carried", [])]
        for action in criteria["actions"]:
            keys = action["compare_args"]  # None: every argument of the call
            seen = any(
                c["name"] == action["name"]
                and all(
                    c["arguments"].get(k) == action["arguments"].get(k)
                    for k in (c["arguments"] if keys is None else keys)
                )
                for c in calls
            )
            assert seen or action["action_id"] in labels, (task_id, action["action_id"])
        assert (sim["id"] in listed) == bool(labels)
