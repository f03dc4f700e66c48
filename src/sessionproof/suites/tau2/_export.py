"""A stored run written as a tau2-bench results file (`export RUN_ID --format tau2`).

The file has tau2's `Results` shape: `timestamp`, `info` (the agent, the user, the domain),
`tasks` (each session's task exactly as the suite read it) and `simulations`, one per
session, with its messages in tau2's half-duplex form, its termination reason and its
verdict as a `reward_info`. tau2's own `evaluate_simulation` re-grades such a file: it
replays every tool call of the messages, so a call that never took effect here (a fault
injected before the domain, a write an implicit fault left uncommitted, arguments that never
parsed) is left out of the messages and named in the simulation's `info`; a call the domain
ran before an injected fault answered the agent is kept, its tool message the error the
agent saw (`info.ran_under_injected_fault`: grade such a simulation with tau2's lenient
replay, `strict_replay=False`, since the domain's own output was never shown). The replay
then sees the calls that changed the live domain. What tau2's messages cannot carry is a
call the agent made that the domain never ran: tau2's action check reads the calls from the
messages, so a task action only such a call made counts in sessionproof's verdict (the agent
made it) but not in tau2's re-grade; each is named (`info.actions_not_carried`, and the file's
`info.sessionproof.actions_not_carried` lists those simulations). A session that passed every
criterion evaluated but had one left unevaluated (an NL assertion with no judge) carries no
`reward_info`: never a 0 or a 1; one that failed an evaluated criterion has reward 0, as
tau2's product of components would give whatever the rest say.
Written generically over tau2 suites: any scenario built from a tau2 task
(`metadata["tau2_task"]`) in any domain; the user side's calls on its own tools (dual control)
become tau2's user messages with `tool_calls`, each followed by its tool message, both with
requestor `user`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from ...errors import InputFileError
from ...records import (
    AssistantMessageEvent,
    Scenario,
    Session,
    TerminationReason,
    ToolCall,
    ToolResult,
    ToolResultEvent,
    UserMessageEvent,
)
from ...records._internal import UNCOMMITTED_KINDS, FaultInjectedEvent, ImplicitFaultEvent
from ...store import RunManifest
from ._evaluate import _call_matches

_TERMINATIONS: dict[TerminationReason, str] = {
    TerminationReason.user_stop: "user_stop",
    TerminationReason.agent_stop: "agent_stop",
    # tau2's user stops on a transfer (its simulator ends the call when told it is being
    # transferred); tau2 grades such a session like any other the user ended.
    TerminationReason.transfer: "user_stop",
    TerminationReason.max_steps: "max_steps",
    TerminationReason.too_many_errors: "too_many_errors",
    TerminationReason.infra_error: "infrastructure_error",
}
"""sessionproof's termination reasons as tau2 spells them."""

_DB_CRITERIA = {"db": "DB", "env_assertion": "ENV_ASSERTION", "communicate": "COMMUNICATE"}


def _iso(seconds: float) -> str:
    return dt.datetime.fromtimestamp(seconds or 0.0, tz=dt.UTC).isoformat()


def task_of(scenario: Scenario) -> dict[str, Any] | None:
    """The tau2 task a scenario was built from (None: not a tau2 task's scenario)."""
    raw = scenario.metadata.get("tau2_task")
    return raw if isinstance(raw, dict) else None


def _call(call: ToolCall, requestor: str = "assistant") -> dict[str, Any]:
    return {
        "id": call.id,
        "name": call.name,
        "arguments": dict(call.arguments or {}),
        "requestor": requestor,
    }


def _tool_message(result: ToolResult, at: str, requestor: str = "assistant") -> dict[str, Any]:
    return {
        "id": result.call_id,
        "role": "tool",
        "content": result.output,
        "requestor": requestor,
        "error": not result.ok,
        "timestamp": at,
    }


_USER_CALL = "user_tool_call"
_USER_RESULT = "user_tool_result"
"""The event kinds of the user side's calls on its own tools (dual control), read by kind so
that a session without them needs nothing more."""


def _call_of(event: Any) -> ToolCall | None:
    """The user side's call an event records, if it records one."""
    payload = getattr(event, "payload", None)
    return (
        payload
        if getattr(event, "kind", None) == _USER_CALL and isinstance(payload, ToolCall)
        else None
    )


def _result_of(event: Any) -> ToolResult | None:
    """The tool result (the agent's or the user side's) an event records, if any."""
    if not isinstance(event, ToolResultEvent) and getattr(event, "kind", None) != _USER_RESULT:
        return None
    payload = getattr(event, "payload", None)
    return payload if isinstance(payload, ToolResult) else None


def _ran(session: Session) -> tuple[set[str], set[str]]:
    """(ids of the calls the domain ran and kept, ids of those among them an injected fault
    answered after the domain ran them): a fault injected before the domain (`committed`
    false) or an implicit fault that committed nothing means the call never took effect."""
    answered: set[str] = set()
    committed: set[str] = set()
    uncommitted: set[str] = set()
    for event in session.events:
        result = _result_of(event)
        if result is not None and not result.injected:
            answered.add(result.call_id)
        elif isinstance(event, FaultInjectedEvent) and event.payload.committed:
            committed.add(event.payload.call_id)
        elif isinstance(event, ImplicitFaultEvent) and event.payload.fault in UNCOMMITTED_KINDS:
            uncommitted.add(event.payload.call_id)
    return (answered | committed) - uncommitted, committed - uncommitted


def simulation_messages(session: Session) -> tuple[list[dict[str, Any]], list[str], list[str]]:
    """The session's conversation as tau2 messages, the calls left out of it (each named
    with why) and the calls kept that an injected fault answered after the domain ran them
    (their tool message is the error the agent saw, not the domain's output). Only calls
    that took effect are kept, each right before its tool message, as tau2's replay
    requires."""
    ran, faulted = _ran(session)
    results = {r.call_id: (r, e.t_wall) for e in session.events if (r := _result_of(e))}
    messages: list[dict[str, Any]] = []
    left_out: list[str] = []

    def why(call: ToolCall, answered: bool) -> str:
        if call.arguments is None:
            return f"{call.id} ({call.name}): arguments never parsed"
        return f"{call.id} ({call.name}): " + (
            "never took effect in the domain" if answered else "no reply"
        )

    for event in session.events:
        own = _call_of(event)
        if own is not None:  # the user side's call on its own tools: a user message of tau2's
            found = results.get(own.id)
            if own.id in ran and found is not None and own.arguments is not None:
                at = _iso(event.t_wall)
                messages.append(
                    {
                        "role": "user",
                        "content": None,
                        "tool_calls": [_call(own, "user")],
                        "timestamp": at,
                    }
                )
                messages.append(_tool_message(found[0], _iso(found[1]), "user"))
            else:
                left_out.append(why(own, found is not None))
        elif isinstance(event, UserMessageEvent):
            messages.append(
                {
                    "role": "user",
                    "content": event.payload.content or "",
                    "timestamp": _iso(event.t_wall),
                }
            )
        elif isinstance(event, AssistantMessageEvent):
            calls = []
            answers = []
            for call in event.payload.tool_calls:
                answer = results.get(call.id)
                if call.id in ran and answer is not None and call.arguments is not None:
                    calls.append(_call(call))
                    answers.append(_tool_message(answer[0], _iso(answer[1])))
                else:
                    left_out.append(why(call, answer is not None))
            content = event.payload.content
            if not calls and not (content or "").strip():
                continue  # an empty turn: tau2's messages carry text or calls
            messages.append(
                {
                    "role": "assistant",
                    "content": content,
                    "tool_calls": calls or None,
                    "timestamp": _iso(event.t_wall),
                }
            )
            messages.extend(answers)
    return messages, left_out, sorted(faulted)


def _reward_info(session: Session, basis: list[str]) -> dict[str, Any] | None:
    outcome = session.outcome
    if outcome is None or not session.judged:
        return None
    failed = any(c.passed is False for c in outcome.criteria)
    if not failed and any(c.passed is None for c in outcome.criteria):
        return None  # only an unevaluated criterion stands between it and a pass: no reward
    by_name = {c.name: c for c in outcome.criteria}
    info: dict[str, Any] = {
        # A failed criterion makes tau2's product 0 whatever the unevaluated ones say.
        "reward": 0.0 if failed else float(outcome.reward),
        "reward_basis": basis,
        "info": {
            "sessionproof": [
                {"name": c.name, "passed": c.passed, "evidence": c.evidence}
                for c in outcome.criteria
            ]
        },
    }
    db = by_name.get("db")
    if db is not None and db.passed is not None:
        info["db_check"] = {"db_match": db.passed, "db_reward": 1.0 if db.passed else 0.0}
    breakdown = {
        _DB_CRITERIA[name]: 1.0 if c.passed else 0.0
        for name, c in by_name.items()
        if name in _DB_CRITERIA and c.passed is not None and _DB_CRITERIA[name] in basis
    }
    if breakdown:
        info["reward_breakdown"] = breakdown
    return info


def _basis(task: Mapping[str, Any]) -> list[str]:
    criteria = task.get("evaluation_criteria")
    basis = criteria.get("reward_basis") if isinstance(criteria, dict) else None
    return list(basis) if isinstance(basis, list) else ["DB", "COMMUNICATE"]


def actions_not_carried(
    session: Session, task: Mapping[str, Any], messages: Sequence[Mapping[str, Any]]
) -> list[str]:
    """The task's actions (where its reward counts ACTION) that only calls left out of
    `messages` made, each with those calls' ids: sessionproof's verdict counts them (the
    agent made the call), tau2's action check, which reads the calls in the messages, cannot
    see them (a call the domain never ran cannot be there: tau2's replay would run it)."""
    criteria = task.get("evaluation_criteria")
    if "ACTION" not in _basis(task) or not isinstance(criteria, dict):
        return []
    kept = [c for m in messages for c in m.get("tool_calls") or []]
    ids = {c["id"] for c in kept}
    made = [*session.tool_calls(), *(c for e in session.events if (c := _call_of(e)))]
    lost = [c for c in made if c.id not in ids]
    out: list[str] = []
    for action in criteria.get("actions") or []:
        gold = (action.get("name", ""), action.get("arguments") or {}, action.get("compare_args"))
        if any(_call_matches(*gold, c["name"], c["arguments"]) for c in kept):
            continue
        by = [c.id for c in lost if _call_matches(*gold, c.name, c.arguments or {})]
        if by:
            label = action.get("action_id") or gold[0]
            out.append(f"{label} ({gold[0]}): made only by left-out {', '.join(by)}")
    return out


def simulation(session: Session, task: Mapping[str, Any], index: int) -> dict[str, Any]:
    """One session as a tau2 `SimulationRun`."""
    messages, left_out, faulted = simulation_messages(session)
    reason = _TERMINATIONS.get(session.termination, "infrastructure_error")
    original = session.metadata.get("tau2_termination")
    if isinstance(original, str):
        reason = original  # a session read from a tau2 file keeps tau2's own spelling
    info: dict[str, Any] = {
        "sessionproof_session_id": session.session_id,
        "arm": session.arm,
        "termination": session.termination.value,
    }
    if session.termination_detail:
        info["termination_detail"] = session.termination_detail
    if left_out:
        info["calls_left_out"] = left_out
    if faulted:
        info["ran_under_injected_fault"] = faulted
    not_carried = actions_not_carried(session, task, messages) if left_out else []
    if not_carried:
        info["actions_not_carried"] = not_carried
    outcome = session.outcome
    if outcome is not None and (
        not session.judged or any(c.passed is None for c in outcome.criteria)
    ):
        unevaluated = [c.name for c in outcome.criteria if c.passed is None]
        info["not_judged"] = outcome.not_judged or "not evaluated: " + ", ".join(unevaluated)
    return {
        "id": f"{session.session_id}",
        "task_id": str(task.get("id", session.scenario_id)),
        "trial": session.trial,
        "timestamp": _iso(session.started_at),
        "start_time": _iso(session.started_at),
        "end_time": _iso(session.ended_at),
        "duration": max(0.0, session.ended_at - session.started_at),
        "termination_reason": reason,
        "agent_cost": None,
        "user_cost": None,
        "reward_info": _reward_info(session, _basis(task)),
        "messages": messages,
        "mode": "half_duplex",
        "info": info,
        "_index": index,
    }


def write_tau2(
    sessions: Sequence[Session], scenarios: Mapping[str, Scenario], manifest: RunManifest
) -> bytes:
    """A tau2 results file of `sessions` (one domain; their scenarios built from tau2 tasks).

    Raises `InputFileError` in one line when a session's scenario is unknown or is not a
    tau2 task's, or when the sessions span several domains (tau2's file has one).
    """
    tasks: dict[str, dict[str, Any]] = {}
    domains: set[str] = set()
    for session in sessions:
        scenario = scenarios.get(session.scenario_id)
        if scenario is None:
            raise InputFileError(
                f"run {manifest.run_id}: the scenario of session {session.session_id!r} "
                f"({session.scenario_id!r}) is not known; cannot write its tau2 task"
            )
        task = task_of(scenario)
        if task is None:
            raise InputFileError(
                f"run {manifest.run_id} (suite {manifest.suite or '?'}): scenario "
                f"{scenario.id!r} is not a tau2 task; --format tau2 exports runs of tau2 suites"
            )
        tasks.setdefault(scenario.id, task)
        domains.add(scenario.domain)
    arms = sorted({s.arm for s in sessions})
    if len(arms) > 1:
        raise InputFileError(
            f"run {manifest.run_id} has arms {', '.join(arms)}; a tau2 results file holds one "
            "arm's sessions (tau2 has no arms): export each with --arm ARM"
        )
    if len(domains) > 1:
        raise InputFileError(
            f"run {manifest.run_id} spans domains {', '.join(sorted(domains))}; a tau2 results "
            "file holds one"
        )
    sims = []
    for i, session in enumerate(sessions):
        sim = simulation(session, tasks[session.scenario_id], i)
        sim.pop("_index")
        sims.append(sim)
    not_carried = [s["id"] for s in sims if "actions_not_carried" in s["info"]]
    notes: dict[str, Any] = {}
    if not_carried:
        notes["actions_not_carried"] = not_carried
        notes["actions_not_carried_why"] = (
            "in these simulations a task action was made only by a call left out of the "
            "messages (the domain never ran it, e.g. an injected fault stopped it, and tau2's "
            "replay would run it); tau2's action check reads the messages and cannot see it, "
            "so its ACTION component can be 0 where sessionproof's verdict counts the action"
        )
    doc = {
        "timestamp": manifest.created_at,
        "info": {
            "git_commit": "",
            "num_trials": manifest.trials,
            "max_steps": manifest.max_steps or 0,
            "max_errors": 10,
            "user_info": {
                "implementation": "sessionproof",
                "llm": manifest.user_model,
                "llm_args": {},
            },
            "agent_info": {"implementation": "sessionproof", "llm": manifest.model, "llm_args": {}},
            "environment_info": {
                "domain_name": next(iter(domains), ""),
                "policy": "",
                "tool_defs": None,
            },
            "seed": manifest.seed,
            "sessionproof": {
                "run_id": manifest.run_id,
                "suite": manifest.suite,
                "arms": list(manifest.arms),
                **notes,
            },
        },
        "tasks": list(tasks.values()),
        "simulations": sims,
    }
    return orjson.dumps(doc, option=orjson.OPT_INDENT_2)
