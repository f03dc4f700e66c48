"""inspect_ai eval logs (`.eval` zip or `.json`) → sessions, one per sample and epoch.

Read through inspect_ai's own log reader (`inspect_ai.log.read_eval_log`), an optional
dependency (`pip install 'sessionproof[inspect]'`): the log format is inspect's to change, and
its reader follows it. A sample's messages become the session's events (tool calls from
`ChatMessageAssistant.tool_calls`, results from `ChatMessageTool`, whose `error` is classified
by the taxonomy), its model calls come from the sample's model events, and its outcome from a
scorer's score: `--label-from SCORER` (or `SCORER.KEY` for a score holding several values),
by default the first scorer; inspect's C / I marks read as pass / fail.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..records import ErrorClass, Session, TerminationReason
from ..records._internal import ModelCall, Usage
from ._common import (
    ImportedSession,
    ImportResult,
    RecordError,
    ReportedVerdict,
    SessionBuilder,
    parse_time,
)
from ._common import tool_call as make_call
from ._inspect_read import ZIP_MAGIC, read_log
from ._labels import LabelRule, label_session

if TYPE_CHECKING:
    from inspect_ai.log import EvalSample

FORMAT = "inspect"

# inspect's ToolCallError types that name a class outright; the rest are read by the
# taxonomy's classifier from the message.
_ERROR_TYPES = {
    "timeout": ErrorClass.timeout,
    "parsing": ErrorClass.validation_error,
    "file_not_found": ErrorClass.not_found,
    "permission": ErrorClass.policy_refusal,
    "approval": ErrorClass.policy_refusal,
    "output_limit": ErrorClass.truncated_output,
    "limit": ErrorClass.truncated_output,
}


def looks_like_inspect(raw: bytes, doc: object) -> bool:
    """True for a `.eval` zip, or a `.json` log (`{"version", "eval": {...}, ...}`)."""
    if raw.startswith(ZIP_MAGIC):
        return True
    return isinstance(doc, dict) and isinstance(doc.get("eval"), dict) and "version" in doc


def read_inspect(
    raw: bytes,
    *,
    source: str,
    run_id: str,
    domain: str | None,
    label_from: LabelRule | None = None,
) -> ImportResult:
    """The sessions of an inspect_ai eval log: one per sample and epoch."""
    result = ImportResult(format=FORMAT, source=source, domain=domain)
    log, samples = read_log(raw, result.errors)
    model = str(log.eval.model or "")
    for index, sample in enumerate(samples):
        sid = str(sample.id) if sample.epoch <= 1 else f"{sample.id}@{sample.epoch}"
        try:
            session = _session(sample, sid, run_id, model, domain)
        except (ValueError, TypeError) as exc:
            problem = RecordError(index=index, field="", message=str(exc), record_id=sid)
            result.errors.append(problem)
            continue
        reported = _outcome(sample, session, label_from, index, result.errors)
        result.sessions.append(ImportedSession(index=index, session=session, reported=reported))
    if log.status != "success":
        note = f"the eval's status is {log.status}"
        if log.error is not None:
            note += f": {log.error.message}"
        result.errors.append(RecordError(index=None, field="status", message=note, fatal=False))
    return result


def _seconds(value: object) -> float | None:
    """Unix seconds of an inspect timestamp (a datetime, or ISO text in older logs)."""
    stamp = getattr(value, "timestamp", None)
    if callable(stamp):
        return float(stamp())
    return parse_time(value)


def _model_calls(sample: EvalSample, model: str) -> list[tuple[ModelCall, float | None]]:
    """Each model event's call, and when its reply came."""
    calls = []
    for event in sample.events or []:
        if getattr(event, "event", None) != "model":
            continue
        usage = getattr(event.output, "usage", None)
        call = ModelCall(
            provider=str(event.model).split("/", 1)[0] if event.model else "unknown",
            model=str(event.model or model or "unknown"),
            usage=Usage(
                input_tokens=usage.input_tokens if usage else 0,
                output_tokens=usage.output_tokens if usage else 0,
                cached_tokens=(usage.input_tokens_cache_read or 0) if usage else 0,
            ),
            latency_s=float(getattr(event, "working_time", None) or 0.0),
        )
        calls.append((call, _seconds(event.completed or event.timestamp)))
    return calls


def _tool_times(sample: EvalSample) -> dict[str, float | None]:
    """When each tool call's result came, by call id."""
    return {
        str(event.id): _seconds(event.completed or event.timestamp)
        for event in sample.events or []
        if getattr(event, "event", None) == "tool"
    }


def _session(sample: EvalSample, sid: str, run_id: str, model: str, domain: str | None) -> Session:
    # inspect's messages carry no times; its events do.
    builder = SessionBuilder(run_id, sid, start=_seconds(sample.started_at))
    model_calls = iter(_model_calls(sample, model))
    tool_times = _tool_times(sample)
    for msg in sample.messages:
        role = msg.role
        if role == "user":
            builder.user(msg.text)
        elif role == "assistant":
            call, at = next(model_calls, (None, None))
            if call is not None:
                builder.model_call(call, at)
            calls = []
            for tc in getattr(msg, "tool_calls", None) or []:
                made = make_call(tc.id, tc.function, tc.arguments)
                if tc.parse_error:
                    update = {"arguments": None, "parse_error": tc.parse_error}
                    made = made.model_copy(update=update)
                calls.append(made)
            builder.assistant(msg.text or None, calls, at)
        elif role == "tool":
            error = getattr(msg, "error", None)
            call_id = getattr(msg, "tool_call_id", None) or ""
            builder.tool_result(
                call_id,
                msg.text,
                error is not None,
                tool_times.get(call_id),
                error=error.message if error is not None else None,
                error_class=_ERROR_TYPES.get(error.type) if error is not None else None,
            )
    termination, detail = TerminationReason.agent_stop, ""
    if sample.error is not None:
        termination, detail = TerminationReason.infra_error, sample.error.message
    elif sample.limit is not None:
        termination, detail = TerminationReason.max_steps, f"{sample.limit.type} limit"
    metadata: dict[str, Any] = {"epoch": sample.epoch}
    if domain:
        metadata["domain"] = domain
    session = builder.session(
        scenario_id=str(sample.id),
        trial=max(sample.epoch - 1, 0),
        termination=termination,
        detail=detail,
        model=model,
        metadata=metadata,
    )
    ended = _seconds(sample.completed_at)
    if ended is not None:
        session.ended_at = max(ended, session.started_at)
    usage = Usage()
    for call in session.model_calls():
        usage = usage + call.usage
    session.usage = usage
    return session


def _outcome(
    sample: EvalSample,
    session: Session,
    label_from: LabelRule | None,
    index: int,
    errors: list[RecordError],
) -> ReportedVerdict | None:
    scores = sample.scores or {}
    if label_from is None:
        if not scores:
            return None
        rule = LabelRule(next(iter(scores)))
    else:
        rule = label_from
    scorer, _, key = rule.name.partition(".")
    if scorer not in scores:
        known = ", ".join(scores) or "none"
        errors.append(
            RecordError(
                index=index,
                field=rule.name,
                message=f"sample {session.session_id} has no score {scorer!r} (scorers: {known});"
                " kept without an outcome",
                record_id=session.session_id,
                fatal=False,
            )
        )
        return None
    value: object = scores[scorer].value
    if key and isinstance(value, dict):
        value = value.get(key)
    error = label_session(session, rule, value, index=index, where=f"sample {session.session_id}: ")
    if error is not None or session.outcome is None:
        errors.extend([] if error is None else [error])
        return None
    return ReportedVerdict(reward=session.outcome.reward, success=session.outcome.success)
