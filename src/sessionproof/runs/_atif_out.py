"""`export RUN_ID --format atif`: a stored run's sessions as Harbor's Agent Trajectory
Interchange Format (ATIF v1.7), a JSON array of one trajectory per session.

The conversation is in ATIF's own fields: a `system` step with the domain's policy (the system
message the agent was given, when the domain is known); a `user` step per user message; an
`agent` step per assistant message, with its `tool_calls`, their results in
`observation.results` and the tokens of the model calls that produced it in `metrics`. The
domain's tools are the agent's `tool_definitions`, the reward is `extra.reward`. What ATIF has
no field for (the trial, the arm, faults, drift, guard decisions, each criterion's verdict,
the trace's steps and times) rides in `extra.sessionproof`: the session whole, as the store
holds it, and the run's suite, limit and arms. `importers._atif` restores that session when
its conversation matches the steps, so an export imports back whole."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from .. import __version__
from .._atomic import write_atomic
from ..errors import InputFileError
from ..importers._internal import ATIF_CARRIER, ATIF_VERSION
from ..records import AssistantMessageEvent, Session, ToolCall, ToolResultEvent, UserMessageEvent
from ..records._internal import ModelCallEvent
from ..store import RunManifest
from ..store._internal import scrub_value
from ._metrics import _reading, scenarios_for
from ._rollouts import _Domains, select


def _time(t_wall: float) -> str | None:
    if t_wall <= 0:
        return None
    return dt.datetime.fromtimestamp(t_wall, dt.UTC).isoformat().replace("+00:00", "Z")


def _arguments(call: ToolCall) -> object:
    return call.arguments if call.arguments is not None else (call.raw_arguments or "")


def _steps(session: Session, policy: str | None) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """The ATIF steps of `session` (first the policy the agent was given, when known), and
    its token totals."""
    steps: list[dict[str, Any]] = []
    if policy is not None:
        first = _time(session.events[0].t_wall) if session.events else None
        steps.append(
            {"step_id": 1, "source": "system", "message": policy}
            | ({"timestamp": first} if first else {})
        )
    owner: dict[str, dict[str, Any]] = {}
    tokens = {"prompt": 0, "completion": 0, "cached": 0}
    pending = dict.fromkeys(tokens, 0)
    billed = False
    for event in session.events:
        at = _time(event.t_wall)
        base: dict[str, Any] = {"step_id": len(steps) + 1} | ({"timestamp": at} if at else {})
        if isinstance(event, ModelCallEvent):
            usage = event.payload.usage
            pending["prompt"] += usage.input_tokens + usage.cached_tokens
            pending["completion"] += usage.output_tokens
            pending["cached"] += usage.cached_tokens
            billed = True
        elif isinstance(event, UserMessageEvent):
            steps.append(base | {"source": "user", "message": event.payload.content or ""})
        elif isinstance(event, AssistantMessageEvent):
            msg = event.payload
            step = base | {"source": "agent", "message": msg.content or ""}
            if session.model:
                step["model_name"] = session.model
            if msg.tool_calls:
                step["tool_calls"] = [
                    {"tool_call_id": c.id, "function_name": c.name, "arguments": _arguments(c)}
                    for c in msg.tool_calls
                ]
                for c in msg.tool_calls:
                    owner[c.id] = step
            if billed:
                step["metrics"] = {
                    "prompt_tokens": pending["prompt"],
                    "completion_tokens": pending["completion"],
                    "cached_tokens": pending["cached"],
                }
                for key in tokens:
                    tokens[key] += pending[key]
                pending = dict.fromkeys(tokens, 0)
                billed = False
            steps.append(step)
        elif isinstance(event, ToolResultEvent):
            res = event.payload
            step = owner.get(res.call_id, {})
            if step:
                results = step.setdefault("observation", {"results": []})["results"]
                results.append({"source_call_id": res.call_id, "content": res.output})
    return steps, tokens


def trajectory(
    session: Session,
    manifest: RunManifest,
    tools: list[dict[str, Any]],
    policy: str | None = None,
) -> dict[str, Any]:
    """One session as an ATIF v1.7 trajectory (the module's doc says where each part goes)."""
    steps, tokens = _steps(session, policy)
    agent: dict[str, Any] = {"name": "sessionproof", "version": __version__}
    if session.model:
        agent["model_name"] = session.model
    if tools:
        agent["tool_definitions"] = tools
    extra: dict[str, Any] = {
        "task_id": session.scenario_id,
        ATIF_CARRIER: {
            "run": {
                "run_id": manifest.run_id,
                "command": manifest.command,
                "suite": manifest.suite,
                "limit": manifest.limit,
                "arms": list(manifest.arms),
            },
            "session": session.model_dump(mode="json"),
        },
    }
    if session.judged and session.outcome is not None:
        extra["reward"] = session.outcome.reward
    return {
        "schema_version": ATIF_VERSION,
        "session_id": session.session_id,
        "agent": agent,
        "steps": steps,
        "final_metrics": {
            "total_prompt_tokens": tokens["prompt"],
            "total_completion_tokens": tokens["completion"],
            "total_cached_tokens": tokens["cached"],
            "total_steps": len(steps),
        },
        "extra": extra,
    }


def write_atif(run_id: str, store: Path, output: Path, outcome: str | None, arm: str | None) -> int:
    """Write a stored run's sessions (filtered as rollouts are) to `output` as a JSON array of
    ATIF trajectories, whole or not at all; returns the trajectory count."""
    with _reading(store) as db:
        manifest = db.get_run(run_id)
        sessions = db.load_sessions(manifest.run_id)
    kept = select(sessions, manifest, outcome, arm)
    scenarios, domain_for, _ = scenarios_for(manifest, sessions)
    domains = _Domains(domain_for)
    # Scrubbed as the store and the trace export scrub: a secret known now is never written.
    found = []
    for s in kept:
        tools, _, policy = domains.of(scenarios.get(s.scenario_id))
        found.append(scrub_value(trajectory(s, manifest, tools, policy)))
    try:
        write_atomic(output, json.dumps(found, ensure_ascii=False).encode())
    except OSError as exc:
        raise InputFileError(f"{output}: cannot write: {exc.strerror or exc}") from None
    return len(found)
