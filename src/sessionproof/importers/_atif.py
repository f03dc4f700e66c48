"""Harbor's Agent Trajectory Interchange Format (ATIF, `trajectory.json`) → sessions.

A trajectory is `{schema_version: "ATIF-v1.x", session_id, agent: {name, version,
model_name?}, steps: [...], final_metrics?, extra?}`; a step is `{step_id, source: system |
user | agent, message, model_name?, tool_calls?: [{tool_call_id, function_name, arguments}],
observation?: {results: [{source_call_id?, content?}]}, metrics?: {prompt_tokens,
completion_tokens, cached_tokens, ...}, extra?}`. From v1.6 a message (and a result's content)
may be a list of parts (`{type: text, text}` or an image). A file holds one trajectory, a list
of them, or one per line.

ATIF has no field for a verdict or a tool error: a verifier's reward rides in `extra` when it
rides at all (`extra.reward`, `final_metrics.extra.reward`), read by default, or named with
`--label-from PATH` (dotted, from the trajectory's root); a tool result reports a failure the
way the agent's tools say it (`Error: ...`, or `extra.is_error`).

sessionproof's own export (`export --format atif`) carries, in `extra.sessionproof`, the
session whole and the run it came from (`_atif_carried`): the session is restored when its
conversation equals the steps', and `atif_run` names the run's suite, limit and arms, so an
export imports back whole.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, ValidationError

from ..errors import ForeignJSONError, InputFileError
from ..records import Session, TerminationReason
from ..records._internal import ModelCall, Usage
from ._atif_carried import ATIF_CARRIER, restore_session, run_of
from ._common import (
    ForeignRecord,
    ImportedSession,
    ImportResult,
    RecordError,
    ReportedVerdict,
    SessionBuilder,
    call_problems,
    distinct_trials,
    first_problem,
    parse_time,
    repeated_call_ids,
    tool_call,
    unanswered_result,
)
from ._json import load_json
from ._labels import LabelRule, label_session

FORMAT = "atif"
_REWARD = LabelRule("reward", threshold=1.0)
"""The default label: a verifier reward, a pass only when full (Harbor's tasks score 0 or 1)."""
_DEFAULT_PATHS = ("reward", "extra.reward", "final_metrics.extra.reward", "extra.success")


class _Agent(ForeignRecord):
    name: str
    version: str | None = None
    model_name: str | None = None


class _Call(ForeignRecord):
    tool_call_id: str
    function_name: str
    arguments: Any = None


class _Result(ForeignRecord):
    source_call_id: str | None = None
    content: str | list[Any] | None = None
    extra: dict[str, Any] | None = None


class _Observation(ForeignRecord):
    results: list[_Result] = Field(default_factory=list)


class _Metrics(ForeignRecord):
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cached_tokens: int | None = None


class _Step(ForeignRecord):
    step_id: int
    source: Literal["system", "user", "agent"]
    message: str | list[Any] = ""
    timestamp: str | None = None
    model_name: str | None = None
    tool_calls: list[_Call] | None = None
    observation: _Observation | None = None
    metrics: _Metrics | None = None


class _Trajectory(ForeignRecord):
    schema_version: str
    session_id: str
    agent: _Agent
    steps: list[Any]
    extra: dict[str, Any] | None = None


def _text(content: str | list[Any] | None) -> str:
    if content is None or isinstance(content, str):
        return content or ""
    parts = [p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text"]
    return "".join(str(p) for p in parts)


def _path(doc: dict[str, Any], path: str) -> tuple[bool, object]:
    node: object = doc
    for key in path.split("."):
        if not isinstance(node, dict) or key not in node:
            return False, None
        node = node[key]
    return True, node


def _documents(raw: bytes) -> list[object]:
    try:
        doc = load_json(raw)
    except ForeignJSONError as whole:
        lines = [line for line in raw.splitlines() if line.strip()]
        try:
            load_json(lines[0])
        except ForeignJSONError:
            # Not one trajectory per line: one document, cut short or broken.
            raise InputFileError(f"not an ATIF trajectory (cut short?): {whole}") from None
        docs: list[object] = []
        for line in lines:
            try:
                docs.append(load_json(line))
            except ForeignJSONError as exc:
                docs.append(exc)  # a bad line costs itself
        return docs
    return list(doc) if isinstance(doc, list) else [doc]


def read_atif(
    raw: bytes,
    *,
    source: str,
    run_id: str,
    domain: str | None,
    label_from: LabelRule | None = None,
) -> ImportResult:
    """The sessions of an ATIF file: one per trajectory; a broken trajectory costs itself."""
    result = ImportResult(format=FORMAT, source=source, domain=domain)
    restored: set[int] = set()
    for index, doc in enumerate(_documents(raw)):
        if isinstance(doc, ForeignJSONError):
            result.errors.append(RecordError(index=index, field="", message=str(doc)))
            continue
        item = _trajectory(doc, index, run_id, domain, label_from, result.errors, restored)
        if item is not None:
            result.sessions.append(item)
    # ATIF names no trial: one task's trajectories count up (a restored session said its own).
    distinct_trials(result.sessions, keep=restored)
    if not result.sessions and not result.errors:
        raise InputFileError("not an ATIF trajectory: no trajectory in the file")
    return result


def _trajectory(
    doc: object,
    index: int,
    run_id: str,
    domain: str | None,
    label_from: LabelRule | None,
    errors: list[RecordError],
    restored: set[int],
) -> ImportedSession | None:
    try:
        traj = _Trajectory.model_validate(doc)
    except ValidationError as exc:
        where, message = first_problem(exc)
        errors.append(RecordError(index=index, field=where, message=message))
        return None
    assert isinstance(doc, dict)
    sid = traj.session_id
    builder = SessionBuilder(run_id, sid)
    models: list[str] = []
    for j, item in enumerate(traj.steps):
        try:
            step = _Step.model_validate(item)
        except ValidationError as exc:
            where, message = first_problem(exc, f"steps.{j}")
            errors.append(RecordError(index=index, field=where, message=message, record_id=sid))
            return None
        if not _step(builder, step, j, traj, index, errors, models):
            return None
    meta = traj.extra or {}
    task = meta.get("task_id") or meta.get("task_name")
    session = builder.session(
        scenario_id=task if isinstance(task, str) and task else sid,
        trial=0,
        termination=TerminationReason.agent_stop,
        model=traj.agent.model_name or (models[0] if models else traj.agent.name),
        metadata={"agent": traj.agent.name, "schema_version": traj.schema_version}
        | ({"domain": domain} if domain else {}),
    )
    usage = Usage()
    for call in session.model_calls():
        usage = usage + call.usage
    session.usage = usage
    found, carried = _path(doc, f"extra.{ATIF_CARRIER}.session")
    if found and label_from is None:
        whole, problem = restore_session(carried, session, run_id, index)
        if whole is not None:
            restored.add(index)
            verdict = None
            if whole.outcome is not None:
                verdict = ReportedVerdict(
                    reward=whole.outcome.reward, success=whole.outcome.success
                )
            return ImportedSession(index=index, session=whole, reported=verdict)
        errors.extend([] if problem is None else [problem])
    reported = _outcome(doc, session, label_from, index, errors)
    return ImportedSession(index=index, session=session, reported=reported)


def atif_run(raw: bytes) -> tuple[str | None, int | None, list[str]]:
    """(suite, limit, arms) of the run a sessionproof ATIF export came from, when every
    trajectory names the same one; (None, None, []) otherwise."""
    try:
        docs = _documents(raw)
    except InputFileError:
        return None, None, []
    where = f"extra.{ATIF_CARRIER}.run"
    return run_of([_path(d, where)[1] if isinstance(d, dict) else None for d in docs])


def _step(
    builder: SessionBuilder,
    step: _Step,
    j: int,
    traj: _Trajectory,
    index: int,
    errors: list[RecordError],
    models: list[str],
) -> bool:
    at = parse_time(step.timestamp)
    sid = traj.session_id
    if step.source == "user":
        builder.user(_text(step.message), at)
    elif step.source == "agent":
        model = step.model_name or traj.agent.model_name or traj.agent.name
        models.append(model)
        if step.metrics is not None:
            m = step.metrics
            cached = m.cached_tokens or 0
            builder.model_call(
                ModelCall(
                    provider="unknown",
                    model=model,
                    usage=Usage(
                        # ATIF's prompt_tokens include the cached ones; ours do not.
                        input_tokens=max((m.prompt_tokens or 0) - cached, 0),
                        output_tokens=m.completion_tokens or 0,
                        cached_tokens=cached,
                    ),
                ),
                at,
            )
        calls = [
            tool_call(c.tool_call_id, c.function_name, c.arguments) for c in step.tool_calls or []
        ]
        fields = [f"steps.{j}.tool_calls.{k}" for k in range(len(calls))]
        for call, where in zip(calls, fields, strict=True):
            errors += call_problems(
                call,
                where=where,
                arguments_field="arguments",
                index=index,
                record_id=sid,
                tools=None,
            )
        errors += repeated_call_ids(builder, calls, fields=fields, index=index, record_id=sid)
        builder.assistant(_text(step.message) or None, calls, at)
    if step.observation is None or step.source != "agent":
        return True  # a system step's observation is the harness's business, not a tool's
    for k, res in enumerate(step.observation.results):
        if res.source_call_id is None:
            continue  # an action outside tool calling: nothing to answer
        flag = (res.extra or {}).get("is_error")
        failed = flag if isinstance(flag, bool) else None
        if builder.tool_result(res.source_call_id, _text(res.content), failed, at) is None:
            where = f"steps.{j}.observation.results.{k}.source_call_id"
            errors.append(
                unanswered_result(res.source_call_id, field=where, index=index, record_id=sid)
            )
    return True


def _outcome(
    doc: dict[str, Any],
    session: Session,
    label_from: LabelRule | None,
    index: int,
    errors: list[RecordError],
) -> ReportedVerdict | None:
    """The session's outcome from its label; the verdict it reports (None without one)."""
    sid = session.session_id
    if label_from is not None:
        found, value = _path(doc, label_from.name)
        rule = label_from
        if not found:
            errors.append(
                RecordError(
                    index=index,
                    field=label_from.name,
                    message=f"the trajectory has no {label_from.name!r}: kept without an outcome",
                    record_id=sid,
                    fatal=False,
                )
            )
            return None
    else:
        hit = next(((p, v) for p in _DEFAULT_PATHS for ok, v in [_path(doc, p)] if ok), None)
        if hit is None:
            return None
        path, value = hit
        rule = LabelRule(path, _REWARD.threshold if path.endswith("reward") else None)
    error = label_session(session, rule, value, index=index)
    if error is not None or session.outcome is None:
        errors.extend([] if error is None else [error])
        return None
    return ReportedVerdict(reward=session.outcome.reward, success=session.outcome.success)
