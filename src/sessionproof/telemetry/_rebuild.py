"""Flat spans → sessions: ours back exactly, anyone's GenAI or OpenInference traces as well
as their attributes allow.

Spans group into sessions by `gen_ai.conversation.id` (OpenInference `session.id`), else by
trace. Within a session, events are ordered by the position our export carries, else by time,
so spans out of order or interleaved with another session's read the same. A span whose parent
is not in the file is kept and named in a warning.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from ..errors import SessionproofError
from ..importers import (
    ImportedSession,
    ImportResult,
    LabelRule,
    RecordError,
    ReportedVerdict,
    distinct_trials,
    first_problem,
)
from ..records import (
    CriterionResult,
    ErrorClass,
    Event,
    EventKind,
    Message,
    ModelCall,
    Outcome,
    Session,
    TerminationReason,
    ToolCall,
    ToolResult,
    Usage,
    make_event,
)
from ..taxonomy import classify_text
from . import _names as n
from ._decode import SpanData, SpanEventData, Value, decode_spans
from ._labelled import apply_label

_HARNESS = {
    f"sessionproof.{k.value}": k
    for k in (
        EventKind.fault_injected,
        EventKind.drift_applied,
        EventKind.guard_decision,
        EventKind.agent_error,
        EventKind.end,
    )
}


def _str(attrs: dict[str, Value], key: str, default: str = "") -> str:
    value = attrs.get(key)
    return value if isinstance(value, str) else default


def _int(attrs: dict[str, Value], key: str, default: int = 0) -> int:
    value = attrs.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _float(attrs: dict[str, Value], key: str, default: float) -> float:
    value = attrs.get(key)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return default


def _error_class(attrs: dict[str, Value], span: SpanData) -> ErrorClass | None:
    named = _str(attrs, n.ERROR_TYPE)
    if named in ErrorClass.__members__:
        return ErrorClass(named)
    if named or span.status_code == 2:
        # Someone else's error name: read it (and the status message) with our classifier.
        return classify_text(f"{named} {span.status_message}".strip())
    return None


@dataclass
class _Pending:
    """An event to make once the session's order is known."""

    order: tuple[float, int]
    kind: EventKind
    payload: Any
    turn: int
    step: int
    t_wall: float
    t_mono: float


class _Session:
    """The spans of one session being rebuilt."""

    def __init__(self, key: str) -> None:
        self.key = key
        self.root: SpanData | None = None
        self.spans: list[SpanData] = []

    def _pending(
        self,
        attrs: dict[str, Value],
        kind: EventKind,
        payload: Any,
        at_ns: int,
        tie: int,
        seq_key: str = n.SEQ,
        wall_key: str = n.T_WALL,
        mono_key: str = n.T_MONO,
    ) -> _Pending:
        wall = _float(attrs, wall_key, at_ns / 1e9)
        seq = attrs.get(seq_key)
        order = (float(seq), 0) if isinstance(seq, int) else (wall * 1e6, tie)
        return _Pending(
            order,
            kind,
            payload,
            _int(attrs, n.TURN),
            _int(attrs, n.STEP),
            wall,
            _float(attrs, mono_key, 0.0),
        )

    def build(self, run_id: str) -> Session:
        """The session these spans describe (raises ValidationError for a payload that does
        not fit its event)."""
        root = self.root or min(self.spans, key=lambda s: s.start_ns)
        ra = root.attrs
        pending: list[_Pending] = []
        calls: dict[str, ToolCall] = {}
        assistants: list[tuple[SpanEventData, int]] = []
        outcome: Outcome | None = None
        tie = 0
        for span in sorted(self.spans, key=lambda s: (s.start_ns, s.index)):
            tie += 1
            a = span.attrs
            op = _str(a, n.OPERATION)
            oi = _str(a, n.OI_KIND).upper()
            if span.name == n.USER_TURN and n.SEQ in a:
                message = Message(role="user", content=_str(a, n.CONTENT) or None)
                pending.append(
                    self._pending(a, EventKind.user_message, message, span.start_ns, tie)
                )
            elif op == n.CHAT or oi == "LLM":
                model = _str(a, n.RESPONSE_MODEL) or _str(a, n.REQUEST_MODEL) or _str(a, n.OI_MODEL)
                reasons = a.get(n.FINISH_REASONS)
                call = ModelCall(
                    provider=_str(a, n.PROVIDER, "unknown"),
                    model=model or span.name.removeprefix("chat ").strip() or "unknown",
                    usage=Usage(
                        input_tokens=_int(a, n.INPUT_TOKENS),
                        output_tokens=_int(a, n.OUTPUT_TOKENS),
                        cached_tokens=_int(a, n.CACHED_TOKENS),
                    ),
                    latency_s=_float(a, n.LATENCY, max(span.end_ns - span.start_ns, 0) / 1e9),
                    finish_reason=str(reasons[0])
                    if isinstance(reasons, list) and reasons
                    else None,
                    response_id=_str(a, n.RESPONSE_ID) or None,
                    attempts=_int(a, n.ATTEMPTS, 1),
                )
                pending.append(self._pending(a, EventKind.model_call, call, span.end_ns, tie))
            elif op == n.EXECUTE_TOOL or oi == "TOOL":
                pending.extend(self._tool(span, calls, tie))
            for event in span.events:
                tie += 1
                kind = _HARNESS.get(event.name)
                if kind is not None:
                    prefix = f"{event.name}."
                    payload = {
                        k[len(prefix) :]: v for k, v in event.attrs.items() if k.startswith(prefix)
                    }
                    pending.append(self._pending(event.attrs, kind, payload, event.time_ns, tie))
                elif event.name == "sessionproof.assistant_message":
                    assistants.append((event, tie))
                elif (
                    event.name == n.EVALUATION_EVENT
                    and _str(event.attrs, n.EVALUATION_NAME) == n.VERDICT
                ):
                    outcome = self._outcome(event.attrs)
                    pending.append(
                        self._pending(event.attrs, EventKind.verdict, outcome, event.time_ns, tie)
                    )
        for event, order in assistants:
            ids = event.attrs.get(n.TOOL_CALLS)
            tool_calls = (
                [calls[i] for i in ids if isinstance(i, str) and i in calls]
                if isinstance(ids, list)
                else []
            )
            content = event.attrs.get(n.CONTENT)
            message = Message.assistant(content if isinstance(content, str) else None, tool_calls)
            pending.append(
                self._pending(
                    event.attrs, EventKind.assistant_message, message, event.time_ns, order
                )
            )
        pending.sort(key=lambda p: p.order)
        session_id = _str(ra, n.CONVERSATION_ID) or _str(ra, n.OI_SESSION) or self.key
        events: list[Event] = [
            make_event(
                p.kind,
                p.payload,
                run_id=run_id,
                session_id=session_id,
                seq=i,
                turn=p.turn,
                step=p.step,
                t_wall=p.t_wall,
                t_mono=p.t_mono,
            )
            for i, p in enumerate(pending)
        ]
        termination = _str(ra, n.TERMINATION)
        metadata = json.loads(_str(ra, n.METADATA) or "{}")
        usage = Usage()
        for e in events:
            if e.kind is EventKind.model_call and isinstance(e.payload, ModelCall):
                usage = usage + e.payload.usage
        return Session(
            run_id=run_id,
            session_id=session_id,
            scenario_id=_str(ra, n.SCENARIO_ID) or session_id,
            trial=_int(ra, n.TRIAL),
            arm=_str(ra, n.ARM, "baseline"),
            model=_str(ra, n.MODEL) or _str(ra, n.AGENT_NAME),
            events=events,
            termination=TerminationReason(termination)
            if termination in TerminationReason.__members__
            else TerminationReason.agent_stop,
            termination_detail=_str(ra, n.TERMINATION_DETAIL),
            outcome=outcome,
            usage=usage,
            started_at=_float(ra, n.STARTED_AT, root.start_ns / 1e9),
            ended_at=_float(ra, n.ENDED_AT, root.end_ns / 1e9),
            metadata=metadata if isinstance(metadata, dict) else {},
        )

    def _tool(self, span: SpanData, calls: dict[str, ToolCall], tie: int) -> list[_Pending]:
        a = span.attrs
        name = (
            _str(a, n.TOOL_NAME)
            or _str(a, n.OI_TOOL_NAME)
            or span.name.removeprefix("execute_tool ").strip()
        )
        call_id = _str(a, n.TOOL_CALL_ID) or f"call-{span.span_id}"
        raw_args = _str(a, n.TOOL_ARGUMENTS) or _str(a, "input.value")
        arguments: dict[str, Any] | None
        if raw_args:
            try:
                parsed = json.loads(raw_args)
            except ValueError:
                parsed = None
            arguments = parsed if isinstance(parsed, dict) else None
        else:
            arguments = {} if a.get(n.ARGS_VALID, True) is True else None
        call = ToolCall(
            id=call_id,
            name=name,
            arguments=arguments,
            raw_arguments=_str(a, n.RAW_ARGUMENTS) or None,
            parse_error=_str(a, n.PARSE_ERROR) or None,
        )
        calls[call_id] = call
        out = [self._pending(a, EventKind.tool_call, call, span.start_ns, tie)]
        ours = n.SEQ in a
        if ours and n.RESULT_SEQ not in a:
            return out  # our export of a call that never got a result
        error_class = _error_class(a, span)
        output = _str(a, n.TOOL_RESULT) or _str(a, "output.value")
        result = ToolResult(
            call_id=call_id,
            name=name,
            output=output,
            error_class=error_class,
            error=(_str(a, n.ERROR_TEXT) or span.status_message or error_class.value)
            if error_class
            else None,
            injected=a.get(n.INJECTED) is True,
            latency_s=_float(a, n.LATENCY, max(span.end_ns - span.start_ns, 0) / 1e9),
        )
        out.append(
            self._pending(
                a,
                EventKind.tool_result,
                result,
                span.end_ns,
                tie,
                seq_key=n.RESULT_SEQ,
                wall_key=n.RESULT_T_WALL,
                mono_key=n.RESULT_T_MONO,
            )
        )
        return out

    @staticmethod
    def _outcome(attrs: dict[str, Value]) -> Outcome:
        criteria = json.loads(_str(attrs, n.CRITERIA) or "[]")
        return Outcome(
            success=_str(attrs, n.SCORE_LABEL) == "pass",
            reward=_float(attrs, n.SCORE_VALUE, 0.0),
            criteria=[CriterionResult.model_validate(c) for c in criteria]
            if isinstance(criteria, list)
            else [],
        )


def _group(spans: list[SpanData], problems: list[RecordError]) -> list[_Session]:
    by_trace: dict[str, list[SpanData]] = {}
    for span in spans:
        by_trace.setdefault(span.trace_id, []).append(span)
    sessions: dict[str, _Session] = {}
    for trace_id, members in by_trace.items():
        ids = {s.span_id for s in members}
        roots = [s for s in members if _str(s.attrs, n.OPERATION) == n.INVOKE_AGENT]
        roots = roots or [s for s in members if not s.parent_id]
        for s in members:
            if s.parent_id and s.parent_id not in ids:
                problems.append(
                    RecordError(
                        index=s.index,
                        field="parentSpanId",
                        fatal=False,
                        message=f"parent {s.parent_id} is not in the file; kept in its trace",
                    )
                )
        root = min(roots, key=lambda s: s.start_ns) if roots else None
        key = trace_id
        for s in ([root] if root else []) + members:
            key = _str(s.attrs, n.CONVERSATION_ID) or _str(s.attrs, n.OI_SESSION) or ""
            if key:
                break
        key = key or trace_id
        group = sessions.setdefault(key, _Session(key))
        group.spans.extend(members)
        if root is not None and (group.root is None or root.start_ns < group.root.start_ns):
            group.root = root
    return list(sessions.values())


@dataclass
class RunInfo:
    """What the resource says of the run the spans came from (our export only)."""

    suite: str | None = None
    limit: int | None = None
    arms: list[str] = field(default_factory=list)


def _run_info(spans: list[SpanData]) -> RunInfo:
    suites = {_str(s.resource, n.RUN_SUITE) for s in spans} - {""}
    if len(suites) != 1:
        return RunInfo()  # none, or several runs in one file: no one suite to name
    first = spans[0].resource
    limit = first.get(n.RUN_LIMIT)
    arms = first.get(n.RUN_ARMS)
    return RunInfo(
        suite=suites.pop(),
        limit=limit if isinstance(limit, int) else None,
        arms=[a for a in arms if isinstance(a, str)] if isinstance(arms, list) else [],
    )


def read_otlp(
    raw: bytes,
    *,
    source: str,
    run_id: str,
    domain: str | None,
    fmt: str = "otlp-json",
    label_from: LabelRule | None = None,
) -> ImportResult:
    """The sessions an OTLP file holds (the importers' `FormatReader` for OTLP)."""
    return read_otlp_run(
        raw, source=source, run_id=run_id, domain=domain, fmt=fmt, label_from=label_from
    )[0]


def read_otlp_run(
    raw: bytes,
    *,
    source: str,
    run_id: str,
    domain: str | None,
    fmt: str = "otlp-json",
    label_from: LabelRule | None = None,
) -> tuple[ImportResult, RunInfo]:
    """The sessions an OTLP file holds, and what its resource says of the run; with
    `label_from`, each session's outcome is the label it names instead of its own verdict."""
    spans, problems = decode_spans(raw, fmt)
    groups = _group(spans, problems)
    result = ImportResult(format=fmt, source=source, domain=domain)
    # The result copies its lists: every problem goes on its own.
    result.errors.extend(problems)
    for index, group in enumerate(groups):
        try:
            session = group.build(run_id)
        except (ValidationError, ValueError) as exc:
            where, message = (
                first_problem(exc) if isinstance(exc, ValidationError) else ("", str(exc))
            )
            result.errors.append(
                RecordError(index=index, field=where, message=message, record_id=group.key)
            )
            continue
        if label_from is not None:
            problem = apply_label(group.spans, group.root, session, label_from, index)
            if problem is not None:
                result.errors.append(problem)
        reported = None
        if session.outcome is not None:
            reported = ReportedVerdict(
                reward=session.outcome.reward, success=session.outcome.success
            )
        result.sessions.append(ImportedSession(index=index, session=session, reported=reported))
    # Our export names each trial; a foreign trace does not, and its sessions of one task
    # would collide in the store.
    distinct_trials(
        result.sessions,
        keep={i for i, g in enumerate(groups) if g.root and n.TRIAL in g.root.attrs},
    )
    info = _run_info(spans)
    _attach_scenarios(result, info)
    return result, info


def _attach_scenarios(result: ImportResult, info: RunInfo) -> None:
    """Give each session the scenario it ran, from the suite the resource names, so `score`
    and `rerun` judge it again; a suite that is not here leaves the sessions without."""
    if info.suite is None:
        return
    from ..suites import load_suite  # the suites load domains; only an import of ours needs them

    try:
        scenarios = {s.id: s for s in load_suite(info.suite).scenarios}
    except SessionproofError:
        return
    for item in result.sessions:
        item.scenario = scenarios.get(item.session.scenario_id)


def _reader(fmt: str) -> Callable[..., ImportResult]:
    def read(
        raw: bytes,
        *,
        source: str,
        run_id: str,
        domain: str | None,
        label_from: LabelRule | None = None,
    ) -> ImportResult:
        return read_otlp(
            raw, source=source, run_id=run_id, domain=domain, fmt=fmt, label_from=label_from
        )

    read.__doc__ = f"Reads an {fmt} file into sessions."
    return read


read_otlp_json = _reader("otlp-json")
"""The importers' reader of OTLP-JSON files."""
read_otlp_proto = _reader("otlp-proto")
"""The importers' reader of OTLP protobuf files."""
