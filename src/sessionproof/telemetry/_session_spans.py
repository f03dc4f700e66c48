"""One session's spans → its typed events: the attributes our export writes read back
exactly, anyone else's GenAI or OpenInference spans as far as their attributes go.

`SessionSpans` collects a session's spans (grouped by `_rebuild`), orders what they describe
by the position our export carries (else by time) and builds the session from it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..records import (
    CriterionResult,
    ErrorClass,
    Event,
    EventKind,
    Message,
    Outcome,
    Session,
    TerminationReason,
    ToolCall,
    ToolResult,
)
from ..records._internal import ModelCall, ModelRole, Usage, make_event
from ..taxonomy._internal import classify_text
from . import _names as n
from ._decode import SpanData, SpanEventData, Value

_HARNESS = {
    f"sessionproof.{k.value}": k
    for k in (
        EventKind.fault_injected,
        EventKind.provider_fault,
        EventKind.drift_applied,
        EventKind.guard_decision,
        EventKind.agent_error,
        EventKind.end,
    )
}


def text_attr(attrs: dict[str, Value], key: str, default: str = "") -> str:
    """The string attribute `key`, or `default` when it is absent or not a string."""
    value = attrs.get(key)
    return value if isinstance(value, str) else default


def _int(attrs: dict[str, Value], key: str, default: int = 0) -> int:
    value = attrs.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _role(attrs: dict[str, Value]) -> ModelRole:
    """Who made a model call, as its span says; a span without (another tool's) is the
    agent's, the only calls such traces record."""
    value = attrs.get(n.MODEL_ROLE)
    return value if value in ("agent", "user", "judge") else "agent"  # type: ignore[return-value]


def _float(attrs: dict[str, Value], key: str, default: float) -> float:
    value = attrs.get(key)
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            return float(value)
        except OverflowError:  # an integer past float range: not a usable time or score
            return default
    return default


def _error_class(attrs: dict[str, Value], span: SpanData) -> ErrorClass | None:
    named = text_attr(attrs, n.ERROR_TYPE)
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


class SessionSpans:
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
            op = text_attr(a, n.OPERATION)
            oi = text_attr(a, n.OI_KIND).upper()
            if span.name == n.USER_TURN and n.SEQ in a:
                message = Message(role="user", content=text_attr(a, n.CONTENT) or None)
                pending.append(
                    self._pending(a, EventKind.user_message, message, span.start_ns, tie)
                )
            elif op == n.CHAT or oi == "LLM":
                model = (
                    text_attr(a, n.RESPONSE_MODEL)
                    or text_attr(a, n.REQUEST_MODEL)
                    or text_attr(a, n.OI_MODEL)
                )
                reasons = a.get(n.FINISH_REASONS)
                call = ModelCall(
                    provider=text_attr(a, n.PROVIDER, "unknown"),
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
                    response_id=text_attr(a, n.RESPONSE_ID) or None,
                    attempts=_int(a, n.ATTEMPTS, 1),
                    role=_role(a),
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
                    and text_attr(event.attrs, n.EVALUATION_NAME) == n.VERDICT
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
        session_id = text_attr(ra, n.CONVERSATION_ID) or text_attr(ra, n.OI_SESSION) or self.key
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
        termination = text_attr(ra, n.TERMINATION)
        metadata = json.loads(text_attr(ra, n.METADATA) or "{}")
        usage = Usage()
        for e in events:
            # The session's usage is the agent's alone (not the simulated user's or judge's).
            called = e.payload
            if isinstance(called, ModelCall) and called.role == "agent":
                usage = usage + called.usage
        return Session(
            run_id=run_id,
            session_id=session_id,
            scenario_id=text_attr(ra, n.SCENARIO_ID) or session_id,
            trial=_int(ra, n.TRIAL),
            arm=text_attr(ra, n.ARM, "baseline"),
            model=text_attr(ra, n.MODEL) or text_attr(ra, n.AGENT_NAME),
            events=events,
            termination=TerminationReason(termination)
            if termination in TerminationReason.__members__
            else TerminationReason.agent_stop,
            termination_detail=text_attr(ra, n.TERMINATION_DETAIL),
            outcome=outcome,
            usage=usage,
            started_at=_float(ra, n.STARTED_AT, root.start_ns / 1e9),
            ended_at=_float(ra, n.ENDED_AT, root.end_ns / 1e9),
            metadata=metadata if isinstance(metadata, dict) else {},
        )

    def _tool(self, span: SpanData, calls: dict[str, ToolCall], tie: int) -> list[_Pending]:
        a = span.attrs
        name = (
            text_attr(a, n.TOOL_NAME)
            or text_attr(a, n.OI_TOOL_NAME)
            or span.name.removeprefix("execute_tool ").strip()
        )
        call_id = text_attr(a, n.TOOL_CALL_ID) or f"call-{span.span_id}"
        raw_args = text_attr(a, n.TOOL_ARGUMENTS) or text_attr(a, "input.value")
        arguments: dict[str, Any] | None
        unread = None
        if raw_args:
            try:
                parsed = json.loads(raw_args)
            except ValueError as exc:
                parsed, unread = None, f"not JSON: {exc}"
            arguments = parsed if isinstance(parsed, dict) else None
            if arguments is None and unread is None:
                unread = f"a JSON {type(parsed).__name__}, not an object"
        else:
            arguments = {} if a.get(n.ARGS_VALID, True) is True else None
        # Arguments that do not read (cut short, say) are kept as the text they were.
        call = ToolCall(
            id=call_id,
            name=name,
            arguments=arguments,
            raw_arguments=text_attr(a, n.RAW_ARGUMENTS) or (raw_args if unread else None),
            parse_error=text_attr(a, n.PARSE_ERROR) or unread,
        )
        calls[call_id] = call
        user = a.get(n.TOOL_SIDE) == "user"  # the user's own tools (dual control)
        kinds = (
            (EventKind.user_tool_call, EventKind.user_tool_result)
            if user
            else (EventKind.tool_call, EventKind.tool_result)
        )
        out = [self._pending(a, kinds[0], call, span.start_ns, tie)]
        ours = n.SEQ in a
        if ours and n.RESULT_SEQ not in a:
            return out  # our export of a call that never got a result
        error_class = _error_class(a, span)
        output = text_attr(a, n.TOOL_RESULT) or text_attr(a, "output.value")
        result = ToolResult(
            call_id=call_id,
            name=name,
            output=output,
            error_class=error_class,
            error=(text_attr(a, n.ERROR_TEXT) or span.status_message or error_class.value)
            if error_class
            else None,
            injected=a.get(n.INJECTED) is True,
            latency_s=_float(a, n.LATENCY, max(span.end_ns - span.start_ns, 0) / 1e9),
        )
        out.append(
            self._pending(
                a,
                kinds[1],
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
        criteria = json.loads(text_attr(attrs, n.CRITERIA) or "[]")
        return Outcome(
            success=text_attr(attrs, n.SCORE_LABEL) == "pass",
            reward=_float(attrs, n.SCORE_VALUE, 0.0),
            criteria=[CriterionResult.model_validate(c) for c in criteria]
            if isinstance(criteria, list)
            else [],
        )
