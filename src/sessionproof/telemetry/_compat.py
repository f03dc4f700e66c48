"""Compatibility attributes: what Arize Phoenix (OpenInference) and Langfuse read natively.

`--otel-compat openinference` adds OpenInference attributes: `openinference.span.kind` (AGENT
on the session, CHAIN on a user turn, LLM on a model call, TOOL on a tool call), `session.id`
on every span (`RUN_ID:SESSION_ID`: Phoenix groups traces into sessions by it, across runs),
`llm.model_name`, `llm.provider`, `llm.token_count.prompt|completion|total`, `tool.name`, a
`metadata` JSON of the session's run, scenario, trial, arm and verdict, and `input.value` /
`output.value` only when content is opted in. `--otel-compat langfuse` adds Langfuse's own
keys, which it reads before `gen_ai.*`: `langfuse.session.id` (run-qualified too),
`langfuse.trace.name` (the scenario), `langfuse.trace.tags` (arm, termination, pass/fail),
`langfuse.trace.metadata.*`, `langfuse.observation.type` (agent, span, generation, tool),
`langfuse.observation.level` ERROR with its status message on a failed tool call, and
trace/observation input and output only with content. Neither tool turns the GenAI
evaluation event into a score, so the verdict (pass, fail or not_judged) also rides in tags and
metadata, and `_verdict_send` files it through their own APIs.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from ..errors import ConfigError
from ..records import AssistantMessageEvent, Session, UserMessageEvent
from ..store._internal import scrub_text
from . import _names as n

COMPATS = ("openinference", "langfuse")
"""The `--otel-compat` values."""

AttrValue = str | bool | int | float | Sequence[str]
Attrs = dict[str, AttrValue]

_OI_KIND = {n.INVOKE_AGENT: "AGENT", n.CHAT: "LLM", n.EXECUTE_TOOL: "TOOL"}
_LF_TYPE = {n.INVOKE_AGENT: "agent", n.CHAT: "generation", n.EXECUTE_TOOL: "tool"}


def check_compat(compat: str | None) -> str | None:
    """`compat` if it is one we know (or None); raises ConfigError otherwise."""
    if compat is not None and compat not in COMPATS:
        raise ConfigError(f"--otel-compat must be one of {', '.join(COMPATS)}, not {compat!r}")
    return compat


def compat_session_id(session: Session) -> str:
    """The session id Phoenix and Langfuse group traces by: run-qualified, since our session
    ids (scenario and trial) repeat in every run of a suite and the tools would merge them."""
    return f"{session.run_id}:{session.session_id}"


def _verdict(session: Session) -> str:
    """pass, fail, or not_judged (infra error, no outcome, or an outcome that says so)."""
    verdict = session.verdict
    return "not_judged" if verdict is None else ("pass" if verdict else "fail")


def _io(session: Session) -> tuple[str | None, str | None]:
    """The session's first user message and last assistant text, scrubbed."""
    first = next((e.payload.content for e in session.events_of(UserMessageEvent)), None)
    replies = [e.payload.content for e in session.events_of(AssistantMessageEvent)]
    last = next((r for r in reversed(replies) if r), None)
    return (
        None if first is None else scrub_text(first),
        None if last is None else scrub_text(last),
    )


def _run_facts(session: Session) -> dict[str, str | int]:
    return {
        "run_id": session.run_id,
        "scenario_id": session.scenario_id,
        "trial": session.trial,
        "arm": session.arm,
        "termination": session.termination.value,
        "verdict": _verdict(session),
    }


def _openinference(attrs: Attrs, session: Session, content: bool) -> Attrs:
    op = attrs.get(n.OPERATION)
    out: Attrs = {
        n.OI_KIND: _OI_KIND.get(str(op), "CHAIN"),
        n.OI_SESSION: compat_session_id(session),
    }
    if op == n.INVOKE_AGENT:
        out["metadata"] = json.dumps(_run_facts(session), sort_keys=True)
        if content:
            first, last = _io(session)
            if first is not None:
                out["input.value"] = first
            if last is not None:
                out["output.value"] = last
    elif op == n.CHAT:
        out[n.OI_MODEL] = str(attrs.get(n.REQUEST_MODEL, ""))
        out["llm.provider"] = str(attrs.get(n.PROVIDER, ""))
        prompt, completion = attrs.get(n.INPUT_TOKENS), attrs.get(n.OUTPUT_TOKENS)
        if isinstance(prompt, int) and isinstance(completion, int):
            out["llm.token_count.prompt"] = prompt
            out["llm.token_count.completion"] = completion
            out["llm.token_count.total"] = prompt + completion
    elif op == n.EXECUTE_TOOL:
        out[n.OI_TOOL_NAME] = str(attrs.get(n.TOOL_NAME, ""))
        if content and n.TOOL_ARGUMENTS in attrs:
            out["input.value"] = attrs[n.TOOL_ARGUMENTS]
            out["input.mime_type"] = "application/json"
        if content and n.TOOL_RESULT in attrs:
            out["output.value"] = attrs[n.TOOL_RESULT]
    return out


def _langfuse(attrs: Attrs, session: Session, content: bool) -> Attrs:
    op = attrs.get(n.OPERATION)
    out: Attrs = {"langfuse.observation.type": _LF_TYPE.get(str(op), "span")}
    if op == n.INVOKE_AGENT:
        out["langfuse.session.id"] = compat_session_id(session)
        out["langfuse.trace.name"] = session.scenario_id
        tags = [session.arm, session.termination.value, _verdict(session)]
        out["langfuse.trace.tags"] = [t for t in tags if t]
        for key, value in _run_facts(session).items():
            out[f"langfuse.trace.metadata.{key}"] = value
        if content:
            first, last = _io(session)
            if first is not None:
                out["langfuse.trace.input"] = first
            if last is not None:
                out["langfuse.trace.output"] = last
    elif op == n.EXECUTE_TOOL:
        if n.ERROR_TYPE in attrs:
            out["langfuse.observation.level"] = "ERROR"
            error = attrs.get(n.ERROR_TEXT, attrs[n.ERROR_TYPE])
            out["langfuse.observation.status_message"] = str(error)
        if content and n.TOOL_ARGUMENTS in attrs:
            out["langfuse.observation.input"] = attrs[n.TOOL_ARGUMENTS]
        if content and n.TOOL_RESULT in attrs:
            out["langfuse.observation.output"] = attrs[n.TOOL_RESULT]
    return out


def compat_attributes(compat: str | None, attrs: Attrs, session: Session, content: bool) -> Attrs:
    """The attributes `compat` adds to a span of `session` whose own attributes are `attrs`."""
    if compat == "openinference":
        return _openinference(attrs, session, content)
    if compat == "langfuse":
        return _langfuse(attrs, session, content)
    return {}
