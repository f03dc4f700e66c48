"""`--suite tau2-telecom`: tau2's telecom tasks with the user holding their phone (dual
control): the oracle at 1.0, the judge's components, a fault on the user's side, a tau2-bench
data directory, broken inputs, and a `python:` agent guiding the user end to end."""

from __future__ import annotations

import json
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sessionproof.agents import OracleAgent, ScriptedAgent
from sessionproof.cli._internal import app
from sessionproof.conditions import parse_arm
from sessionproof.conditions._internal import hooks_for
from sessionproof.domains import domain_names, register_domain
from sessionproof.engine import execute_run
from sessionproof.engine._internal import RunPlan, SessionList
from sessionproof.errors import InputFileError, UnknownSuiteError
from sessionproof.records import EventKind, Message, Scenario, Session
from sessionproof.records._internal import FaultInjectedEvent
from sessionproof.suites._plugin import SUITES, register_suite
from sessionproof.suites.tau2._plugins import TELECOM_SUITE
from sessionproof.suites.tau2.telecom._env import spec as telecom_spec
from sessionproof.suites.tau2.telecom._files import DATA_ENV
from sessionproof.suites.tau2.telecom._suite import (
    TelecomSuite,
    load_telecom_suite,
    telecom_suite,
)

DATA = resources.files("sessionproof.suites.tau2.telecom") / "data"
AIRPLANE = "[service_issue]airplane_mode_on[PERSONA:None]"


@pytest.fixture(autouse=True)
def registered() -> Iterator[None]:
    """The suite and domain, registered by code when the installed metadata predates them."""
    if "telecom" not in domain_names():
        register_domain(telecom_spec())
    if "tau2-telecom" not in SUITES.names():
        register_suite("tau2-telecom", TELECOM_SUITE)
    yield


async def run(
    suite: TelecomSuite, agent: Any = None, arm: str = "baseline", **plan: Any
) -> list[Session]:
    def hooks(spec: str, seed: int, scenario: Scenario) -> Any:
        return hooks_for(parse_arm(spec), seed)

    return await execute_run(
        suite,
        agent or OracleAgent(),
        RunPlan(run_id="r", arms=[arm], concurrency=4, **plan),
        SessionList(),
        hooks_for=hooks,
    )


def only(suite: TelecomSuite, *ids: str) -> TelecomSuite:
    return TelecomSuite(suite.name, [s for s in suite.scenarios if s.id in ids])


async def test_the_oracle_scores_every_small_task_one() -> None:
    suite = telecom_suite("tau2-telecom")
    assert len(suite.scenarios) == 20
    sessions = await run(suite)
    assert len(sessions) == 20
    for s in sessions:
        assert s.outcome is not None and s.outcome.reward == 1.0 and s.success, s.scenario_id
    # The user-side reference actions were made by the user, on the phone.
    with_user_actions = {sc.id for sc in suite.scenarios if sc.user.actions}
    assert len(with_user_actions) == 16
    for s in sessions:
        assert bool(s.user_tool_calls()) == (s.scenario_id in with_user_actions)


async def test_without_the_users_fixes_the_phone_assertions_fail() -> None:
    suite = telecom_suite("tau2-telecom")
    agent_alone = {sc.id for sc in suite.scenarios if not sc.user.actions}
    for sc in suite.scenarios:
        sc.user.actions = []  # the user does nothing on the phone
    sessions = {s.scenario_id: s for s in await run(suite)}
    airplane = sessions[AIRPLANE]
    assert airplane.outcome is not None and airplane.outcome.reward == 0.0
    (env,) = [c for c in airplane.outcome.criteria if c.name == "env_assertion"]
    assert env.passed is False and "assert_service_status" in env.evidence
    # Tasks the agent alone can solve (its own tools) still pass: the verdict is the state's.
    assert sessions["[mobile_data_issue]data_usage_exceeded[PERSONA:Easy]"].success
    assert {sid for sid, s in sessions.items() if s.success} == agent_alone
    assert len(agent_alone) == 4


async def test_a_dual_control_trace_with_a_fault_on_the_users_phone() -> None:
    suite = only(telecom_suite("tau2-telecom"), AIRPLANE)
    (clean,) = await run(suite)
    (call,) = clean.user_tool_calls()
    assert call.name == "toggle_airplane_mode"
    (result,) = clean.user_tool_results()
    # The user's state, as their phone showed it after the call.
    assert result.output.startswith("Airplane Mode is now OFF.\nStatus Bar: 📶⁴ Excellent | 5G")
    # A timeout after the phone acted (committed): the user saw an error, the phone changed.
    (late,) = await run(suite, arm="user_faults=timeout:100%")
    (fault,) = late.events_of(FaultInjectedEvent)
    assert fault.payload.side == "user" and fault.payload.committed and late.success
    # Unavailable: the call never reached the phone.
    (faulted,) = await run(suite, arm="user_faults=unavailable:100%")
    (fault,) = faulted.events_of(FaultInjectedEvent)
    assert fault.payload.side == "user" and fault.payload.tool == "toggle_airplane_mode"
    assert not fault.payload.committed
    (failed,) = faulted.user_tool_results()
    assert failed.injected and not failed.ok
    assert not faulted.success  # the phone stayed in airplane mode: no service
    kinds = [e.kind for e in faulted.events]
    at = kinds.index(EventKind.user_tool_call)
    assert kinds[at : at + 3] == [
        EventKind.user_tool_call,
        EventKind.fault_injected,
        EventKind.user_tool_result,
    ]
    assert kinds.index(EventKind.user_tool_result) < kinds.index(EventKind.user_message)


async def test_the_agents_own_fix_and_its_assertion_on_the_carriers_side() -> None:
    suite = only(
        telecom_suite("tau2-telecom"), "[mobile_data_issue]data_usage_exceeded[PERSONA:Easy]"
    )
    (ok,) = await run(suite)
    assert ok.success and [c.name for c in ok.tool_calls()] == ["refuel_data"]

    def refuels_too_little(request: Any) -> Message:
        from sessionproof.records import ToolCall

        if request.messages[-1].role == "user":
            args = {"customer_id": "C1001", "line_id": "L1002", "gb_amount": 1.0}
            return Message.assistant(None, [ToolCall(id="x", name="refuel_data", arguments=args)])
        return Message.assistant("Done. ###STOP###")

    (short,) = await run(suite, ScriptedAgent(refuels_too_little))
    (env,) = [c for c in short.outcome.criteria if c.name == "env_assertion"]  # type: ignore[union-attr]
    assert env.passed is False and "assert_data_refueling_amount" in env.evidence


def tau2_checkout(root: Path, tasks: Any = None) -> Path:
    """A directory laid out like tau2-bench's `data/`, built from the shipped files."""
    folder = root / "tau2" / "domains" / "telecom"
    folder.mkdir(parents=True)
    for name in ("db.toml", "user_db.toml", "split_tasks.json"):
        (folder / name).write_bytes((DATA / name).read_bytes())
    raw = tasks if tasks is not None else json.loads((DATA / "tasks_small.json").read_bytes())
    (folder / "tasks.json").write_text(json.dumps(raw))
    (folder / "main_policy.md").write_text("Main policy of the checkout.")
    (folder / "tech_support_manual.md").write_text("Manual of the checkout.")
    return root


async def test_a_tau2_data_directory_gives_its_tasks_and_policy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tau2_checkout(tmp_path / "data")
    monkeypatch.setenv(DATA_ENV, str(root))
    suite = telecom_suite("tau2-telecom:small")
    assert len(suite.scenarios) == 20
    assert suite.scenarios[0].metadata["tau2_data"] == str(root / "tau2" / "domains" / "telecom")
    world = suite.domain_for(suite.scenarios[0]).create()
    assert world.policy == (
        "<main_policy>\nMain policy of the checkout.\n</main_policy>\n"
        "<tech_support_policy>\nManual of the checkout.\n</tech_support_policy>"
    )
    sessions = await run(
        only(suite, AIRPLANE, "[mms_issue]break_app_both_permissions[PERSONA:Hard]")
    )
    assert [s.success for s in sessions] == [True, True]
    # The checkout root (holding data/) is accepted too; a split naming tasks the file lacks
    # says which file.
    monkeypatch.setenv(DATA_ENV, str(tmp_path))
    with pytest.raises(InputFileError, match=r"2265 task\(s\) not in .*tasks.json$"):
        load_telecom_suite("tau2-telecom:full")


def test_without_a_checkout_other_splits_say_where_to_get_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(DATA_ENV, raising=False)
    with pytest.raises(InputFileError, match="--tau2-data"):
        load_telecom_suite("tau2-telecom:base")
    with pytest.raises(UnknownSuiteError, match="no split 'nope'"):
        load_telecom_suite("tau2-telecom:nope")


@pytest.mark.parametrize(
    ("breakage", "message"),
    [
        (
            {
                "initial_state": {
                    "initialization_actions": [
                        {"env_type": "user", "func_name": "melt_phone", "arguments": {}}
                    ]
                }
            },
            r"task #0 \(.*\): initialization_actions.0: no user function 'melt_phone'",
        ),
        (
            {
                "evaluation_criteria": {
                    "actions": [{"name": "toggle_airplane_mode", "requestor": "assistant"}],
                    "reward_basis": ["ACTION"],
                }
            },
            "no assistant tool 'toggle_airplane_mode'",
        ),
        (
            {
                "evaluation_criteria": {
                    "env_assertions": [{"env_type": "user", "func_name": "assert_happy"}],
                    "reward_basis": ["ENV_ASSERTION"],
                }
            },
            "no user function 'assert_happy'",
        ),
        ({"user_scenario": None}, r"task #0 \(.*\): user_scenario"),
    ],
)
def test_a_malformed_task_is_a_clear_error(
    tmp_path: Path, breakage: dict[str, Any], message: str
) -> None:
    tasks = json.loads((DATA / "tasks_small.json").read_bytes())
    tasks[0].update(breakage)
    root = tau2_checkout(tmp_path / "data", tasks)
    with pytest.raises(InputFileError, match=message) as caught:
        load_telecom_suite("tau2-telecom", str(root))
    assert "\n" not in str(caught.value)


def test_a_bad_data_directory_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match="no such directory"):
        load_telecom_suite("tau2-telecom", str(tmp_path / "absent"))
    with pytest.raises(InputFileError, match="not a tau2-bench data directory"):
        load_telecom_suite("tau2-telecom", str(tmp_path))
    root = tau2_checkout(tmp_path / "data")
    (root / "tau2" / "domains" / "telecom" / "tasks.json").write_text("{broken")
    with pytest.raises(InputFileError, match=r"tasks\.json: not valid JSON"):
        load_telecom_suite("tau2-telecom", str(root))
    root = tau2_checkout(tmp_path / "other")
    (root / "tau2" / "domains" / "telecom" / "main_policy.md").unlink()
    with pytest.raises(InputFileError, match=r"main_policy\.md is missing"):
        load_telecom_suite("tau2-telecom", str(root))


@pytest.mark.slow
def test_a_python_agent_guides_the_user_through_the_fix_end_to_end(tmp_path: Path) -> None:
    guide = "python:tests.suites.tau2.telecom_guide"
    result = CliRunner().invoke(
        app,
        [
            "run",
            "--suite",
            "tau2-telecom",
            "--model",
            f"{guide}:agent",
            "--user-model",
            f"{guide}:user",
            "--limit",
            "9",
            "--json",
            "--store",
            str(tmp_path / "s.duckdb"),
        ],
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["session_accuracy"] == 1.0 and summary["sessions"] == 9


async def test_a_model_playing_the_user_works_its_phone_over_a_real_http_provider() -> None:
    from sessionproof.agents import make_agent

    from ...agents.fakeprovider import FakeProvider, Reply, Seen, completion

    def user_model(seen: Seen) -> Reply:
        messages = seen.body["messages"]
        if not any(m["role"] == "tool" for m in messages):
            return Reply(completion(tool_calls=[("call-1", "toggle_airplane_mode", {})]))
        if messages[-1]["role"] == "tool":
            return Reply(completion("I turned airplane mode off; I have signal again."))
        return Reply(completion("Thanks! ###STOP###"))

    server = FakeProvider(responder=user_model).start()
    try:
        user = make_agent(f"openai-compat:fake-user@{server.url}")
        suite = only(telecom_suite("tau2-telecom"), AIRPLANE)
        (session,) = await execute_run(
            suite, OracleAgent(), RunPlan(run_id="r"), SessionList(), user_model=user
        )
        await user.aclose()
    finally:
        server.stop()
    assert session.success
    first, second = server.posts()[:2]
    offered = {t["function"]["name"] for t in first.body["tools"]}
    assert "toggle_airplane_mode" in offered and "get_customer_by_phone" not in offered
    tool_msgs = [m for m in second.body["messages"] if m["role"] == "tool"]
    assert tool_msgs[0]["content"].startswith("Airplane Mode is now OFF.")
    assert [c.name for c in session.user_tool_calls()] == ["toggle_airplane_mode"]
    agent_view = [m.content for m in session.messages() if m.role == "user"]
    assert agent_view[0] == "I turned airplane mode off; I have signal again."


def as_tau2_messages(session: Session) -> list[dict[str, Any]]:
    """A session's conversation in tau2's message format, the user's calls included."""
    out: list[dict[str, Any]] = []
    for e in session.events:
        p = e.payload.model_dump(mode="json")
        if e.kind is EventKind.user_message:
            out.append({"role": "user", "content": p["content"]})
        elif e.kind is EventKind.assistant_message:
            calls = [
                {"id": c["id"], "name": c["name"], "arguments": c["arguments"]}
                for c in p["tool_calls"]
            ]
            out.append({"role": "assistant", "content": p["content"], "tool_calls": calls or None})
        elif e.kind is EventKind.user_tool_call:
            call = {
                "id": p["id"],
                "name": p["name"],
                "arguments": p["arguments"],
                "requestor": "user",
            }
            out.append({"role": "user", "content": None, "tool_calls": [call]})
        elif e.kind in (EventKind.tool_result, EventKind.user_tool_result):
            side = "user" if e.kind is EventKind.user_tool_result else "assistant"
            out.append(
                {"role": "tool", "id": p["call_id"], "content": p["output"], "requestor": side}
            )
    return out


async def test_a_tau2_results_file_of_telecom_is_read_with_the_users_calls_and_judged() -> None:
    from sessionproof.suites.tau2._plugins import TAU2_JUDGE
    from sessionproof.suites.tau2._tau2 import import_tau2

    suite = only(
        telecom_suite("tau2-telecom"),
        AIRPLANE,
        "[service_issue]overdue_bill_suspension[PERSONA:Easy]",
    )
    sessions = await run(suite)
    sims = [
        {
            "id": s.session_id,
            "task_id": s.scenario_id,
            "trial": 0,
            "termination_reason": "user_stop",
            "messages": as_tau2_messages(s),
        }
        for s in sessions
    ]
    # The same airplane session without the user's own call: the phone stays in airplane mode.
    idle = [m for m in sims[0]["messages"] if not m.get("tool_calls") or m["role"] != "user"]
    idle = [m for m in idle if m.get("requestor") != "user"]
    sims.append({**sims[0], "id": "idle", "messages": idle})
    doc = {
        "info": {"environment_info": {"domain_name": "telecom"}},
        "tasks": [sc.metadata["tau2_task"] for sc in suite.scenarios],
        "simulations": sims,
    }
    result = import_tau2(json.dumps(doc).encode(), source="t.json", run_id="imp")
    assert not [e for e in result.errors if e.fatal]
    read = {i.session.session_id: i for i in result.sessions}
    assert len(read) == 3
    rewards = {}
    for sid, item in read.items():
        assert item.scenario is not None
        rewards[sid] = TAU2_JUDGE.judge_recorded(item.scenario, item.session).outcome.reward
    overdue = read[sessions[1].session_id].session
    assert [c.name for c in overdue.user_tool_calls()] == ["make_payment", "reboot_device"]
    assert rewards == {sessions[0].session_id: 1.0, sessions[1].session_id: 1.0, "idle": 0.0}


@pytest.mark.slow
async def test_the_users_calls_and_faults_survive_an_otlp_export_and_import(
    tmp_path: Path,
) -> None:
    from sessionproof.runs import export_traces, import_traces
    from sessionproof.store import Store

    from ...store.factory import manifest

    suite = only(telecom_suite("tau2-telecom"), AIRPLANE)
    (session,) = await run(suite, arm="user_faults=timeout:100%")
    store = tmp_path / "s.duckdb"
    with Store.open(store) as db:
        db.create_run(manifest("r", [AIRPLANE]))
        db.write_session(session)
    with_content = tmp_path / "t.json"
    export_traces("r", store=store, fmt="otlp-json", output=with_content, content=True)
    imported = import_traces(with_content, fmt="otlp-json", store=tmp_path / "back.duckdb")
    assert imported.errors == []
    with Store.open_for_reading(tmp_path / "back.duckdb") as db:
        (back,) = db.load_sessions(imported.run_id)
    assert back.user_tool_calls() == session.user_tool_calls()
    assert [r.output for r in back.user_tool_results()] == [
        r.output for r in session.user_tool_results()
    ]
    assert back.tool_calls() == session.tool_calls() == []
    (fault,) = back.events_of(FaultInjectedEvent)
    assert fault.payload.side == "user"
    # Without content, the phone's answers stay out of the trace.
    bare = tmp_path / "bare.json"
    export_traces("r", store=store, fmt="otlp-json", output=bare)
    assert "Airplane Mode is now" not in bare.read_text()
    assert "toggle_airplane_mode" in bare.read_text()


async def test_the_stand_in_user_fixes_nothing_for_an_agent_under_test() -> None:
    # Without a user model, the user's reference calls are made for the oracle only: an
    # agent that does nothing gets no fix it did not guide (it passed 14 of 20 when the
    # stand-in acted for everyone).
    idle = ScriptedAgent(lambda request: Message.assistant("Sorry. ###STOP###"))
    sessions = await run(telecom_suite("tau2-telecom"), idle)
    assert len(sessions) == 20
    assert not any(s.success for s in sessions)
    assert not any(s.user_tool_calls() for s in sessions)
