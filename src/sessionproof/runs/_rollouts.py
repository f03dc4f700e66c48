"""`export RUN_ID --format rollouts`: one JSON line per session for training, with the tool
schemas, the messages in the OpenAI chat shape, the outcome reward and the turn-level and
step-level credit (`scoring._credit`; docs/rollouts.md defines it). A line's shape is the JSON
Schema shipped beside this module (`rollout.schema.json`)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .._atomic import write_atomic
from ..errors import ConfigError, InputFileError, SessionproofError
from ..records import (
    AssistantMessageEvent,
    Scenario,
    Session,
    ToolCall,
    ToolCallEvent,
    ToolResultEvent,
    UserMessageEvent,
)
from ..records._internal import DriftAppliedEvent
from ..scoring._internal import GoldReplays, SessionCredit, not_judged_reason, session_credit
from ..store import RunManifest
from ..store._internal import scrub_value
from ._metrics import DomainFor, _reading, scenarios_for

SCHEMA_ID = "sessionproof-rollout/1"
"""The `schema` field of every line (and the `$id` of the shipped JSON Schema)."""
SCHEMA_FILE = Path(__file__).with_name("rollout.schema.json")
"""The JSON Schema of one line, shipped in the package."""
OUTCOMES = ("pass", "fail")
"""The values of `--outcome`: the sessions judged a success, or a failure."""


def _arguments(call: ToolCall) -> str:
    """A call's arguments as the JSON text a chat API carries (the raw text when it never
    parsed: what the model sent)."""
    if call.arguments is None:
        return call.raw_arguments or ""
    return json.dumps(call.arguments, ensure_ascii=False, sort_keys=False)


def chat_messages(
    session: Session, system: str | None = None
) -> tuple[list[dict[str, Any]], dict[int, int]]:
    """The session's conversation as OpenAI chat messages (after `system`, the domain's policy
    the agent was given, when known), and trace step → the index of the assistant message
    taken at that step (each tool call's step, and each reply's)."""
    out: list[dict[str, Any]] = [] if system is None else [{"role": "system", "content": system}]
    at_step: dict[int, int] = {}
    calls_at: dict[str, int] = {}
    for event in session.events:
        if isinstance(event, UserMessageEvent):
            out.append({"role": "user", "content": event.payload.content or ""})
        elif isinstance(event, AssistantMessageEvent):
            msg = event.payload
            entry: dict[str, Any] = {"role": "assistant", "content": msg.content}
            if msg.tool_calls:
                entry["tool_calls"] = [
                    {
                        "id": c.id,
                        "type": "function",
                        "function": {"name": c.name, "arguments": _arguments(c)},
                    }
                    for c in msg.tool_calls
                ]
                for c in msg.tool_calls:
                    calls_at[c.id] = len(out)
            elif msg.content is None:
                entry["content"] = ""
            at_step.setdefault(event.step, len(out))
            out.append(entry)
        elif isinstance(event, ToolResultEvent):
            res = event.payload
            out.append({"role": "tool", "tool_call_id": res.call_id, "content": res.output})
    for call in session.events_of(ToolCallEvent):
        if call.payload.id in calls_at:
            at_step[call.step] = calls_at[call.payload.id]
    return out, at_step


def _outcome(session: Session) -> dict[str, Any]:
    judged = session.judged
    return {
        "judged": judged,
        "success": session.verdict,
        "reward": session.outcome.reward if judged and session.outcome else None,
        "termination": session.termination.value,
        "not_judged": None if judged else not_judged_reason(session),
    }


def _drift(session: Session) -> list[dict[str, Any]]:
    return [
        {
            "turn": e.payload.turn,
            "kind": e.payload.kind,
            "tool": e.payload.tool,
            "new_tool": e.payload.new_tool,
            "detail": e.payload.detail,
        }
        for e in session.events_of(DriftAppliedEvent)
        if e.payload.applied
    ]


class _Domains:
    """Each domain's tools (as OpenAI `tools` entries) and policy, read once per domain."""

    def __init__(self, domain_for: DomainFor) -> None:
        self._domain_for = domain_for
        self._cache: dict[str, tuple[list[dict[str, Any]], str, str | None]] = {}

    def of(self, scenario: Scenario | None) -> tuple[list[dict[str, Any]], str, str | None]:
        """(tools, where they come from or why there are none, the policy or None)."""
        if scenario is None:
            return [], "unavailable: the run's scenario is not known", None
        if scenario.domain not in self._cache:
            try:
                spec = self._domain_for(scenario)
                tools = [t.openai() for t in spec.tools()]
                found = (tools, f"domain {scenario.domain}", spec.create().policy or None)
            except SessionproofError as exc:
                found = ([], f"unavailable: {str(exc)[:100]}", None)
            self._cache[scenario.domain] = found
        return self._cache[scenario.domain]


def rollout_line(
    session: Session,
    scenario: Scenario | None,
    domain: tuple[list[dict[str, Any]], str, str | None],
    credit: SessionCredit,
) -> dict[str, Any]:
    """One session's line (its shape: `rollout.schema.json`)."""
    messages, at_step = chat_messages(session, domain[2])
    found = credit.model_dump(mode="json")
    for step in found["steps"]:
        step["message"] = at_step.get(step["step"]) if step["decision"] != "end" else None
    return {
        "schema": SCHEMA_ID,
        "run_id": session.run_id,
        "session_id": session.session_id,
        "scenario_id": session.scenario_id,
        "trial": session.trial,
        "arm": session.arm,
        "model": session.model,
        "domain": scenario.domain if scenario is not None else None,
        "tools": domain[0],
        "tools_from": domain[1],
        "messages": messages,
        "reward": found["reward"],
        "outcome": _outcome(session),
        "credit": found,
        "drift": _drift(session),
    }


def select(
    sessions: Sequence[Session], manifest: RunManifest, outcome: str | None, arm: str | None
) -> list[Session]:
    """The sessions `--outcome` and `--arm` keep (a session without a verdict passes neither
    outcome filter); `ConfigError` for an unknown arm or value, or when none is left."""
    if outcome is not None and outcome not in OUTCOMES:
        raise ConfigError(f"--outcome must be pass or fail, not {outcome!r}")
    arms = list(dict.fromkeys([*manifest.arms, *(s.arm for s in sessions)]))
    if arm is not None and arm not in arms:
        raise ConfigError(f"run {manifest.run_id} has no arm {arm!r}; arms: {', '.join(arms)}")
    kept = [
        s
        for s in sessions
        if (arm is None or s.arm == arm) and (outcome is None or s.verdict is (outcome == "pass"))
    ]
    if not kept:
        asked = " ".join(
            f"--{k} {v}" for k, v in (("outcome", outcome), ("arm", arm)) if v is not None
        )
        raise ConfigError(
            f"no session of run {manifest.run_id} matches {asked or 'the filter'} "
            f"({len(sessions)} sessions in the run); nothing written"
        )
    return kept


def rollout_lines(
    sessions: Sequence[Session],
    scenarios: dict[str, Scenario],
    domain_for: DomainFor,
) -> list[dict[str, Any]]:
    """Every session's line, in the order given."""
    replays = GoldReplays()
    domains = _Domains(domain_for)
    specs: dict[str, Any] = {}
    lines = []
    for s in sessions:
        scenario = scenarios.get(s.scenario_id)
        spec = None
        if scenario is not None:
            spec = specs.get(scenario.domain)
            if spec is None:
                spec = _spec(domain_for, scenario)
                specs[scenario.domain] = spec
        credit = session_credit(s, scenario, spec, replays)
        lines.append(rollout_line(s, scenario, domains.of(scenario), credit))
    return lines


def _spec(domain_for: Callable[[Scenario], Any], scenario: Scenario) -> Any:
    try:
        return domain_for(scenario)
    except SessionproofError:
        return None


def write_rollouts(
    run_id: str, store: Path, output: Path, outcome: str | None, arm: str | None
) -> int:
    """Write the rollouts of a stored run to `output` (JSONL, whole or not at all); returns the
    line count. `StoreError` for an unknown run, `ConfigError` for a bad filter or an empty
    result, `InputFileError` when `output` cannot be written."""
    with _reading(store) as db:
        manifest = db.get_run(run_id)
        sessions = db.load_sessions(manifest.run_id)
    kept = select(sessions, manifest, outcome, arm)
    scenarios, domain_for, _ = scenarios_for(manifest, sessions)
    # Scrubbed as the store and the trace export scrub: a secret known now is never written.
    lines = [scrub_value(line) for line in rollout_lines(kept, scenarios, domain_for)]
    text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
    try:
        write_atomic(output, text.encode())
    except OSError as exc:
        raise InputFileError(f"{output}: cannot write: {exc.strerror or exc}") from None
    return len(lines)
