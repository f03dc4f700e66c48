"""What every importer returns, and the helpers that turn foreign messages into events."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..domains import domain_names
from ..errors import validation_problems
from ..records import (
    ErrorClass,
    Event,
    EventKind,
    Message,
    Scenario,
    Session,
    Termination,
    TerminationReason,
    ToolCall,
    ToolResult,
)
from ..records._internal import (
    EVENT_MODELS,
    EventPayload,
    ModelCall,
    make_event,
    parse_arguments,
    trusted,
)
from ..taxonomy._internal import classify_text

MAX_TRIAL = 2**31 - 1
"""Largest trial number the store holds (its `trial` column is a 32-bit INTEGER): checked on
import, so one record past it is skipped by name instead of failing the file's store write."""


def trial_problem(value: object) -> str | None:
    """Why `value` cannot be a trial number (None when it can)."""
    if isinstance(value, bool) or not isinstance(value, int):
        return f"must be an integer, got {type(value).__name__}"
    if not 0 <= value <= MAX_TRIAL:
        return f"must be between 0 and {MAX_TRIAL} (what the store holds), got {value}"
    return None


def domain_problem(name: str) -> str | None:
    """Why no session can run or be judged in domain `name` (None when it is known)."""
    known = domain_names()
    if name in known:
        return None
    return f"unknown domain {name!r}; known domains: {', '.join(known)}"


class ForeignRecord(BaseModel):
    """Base of the models that read third-party formats: fields we do not read are ignored,
    not refused (extra="forbid" is for our own records)."""

    model_config = ConfigDict(extra="ignore")


class RecordError(BaseModel):
    """One problem with one record of an input file."""

    model_config = ConfigDict(extra="forbid")

    index: int | None
    """Position of the record in the file (0-based; None for a problem with the whole file)."""
    field: str
    """Dotted path of the offending field inside the record ("" for the record as a whole)."""
    message: str
    record_id: str | None = None
    """The record's own id (task id, simulation id), when it has one."""
    fatal: bool = True
    """True when the record was skipped; False for a warning on a record that was kept."""

    def __str__(self) -> str:
        where = "file" if self.index is None else f"record #{self.index}"
        if self.record_id:
            where += f" ({self.record_id})"
        if self.field:
            where += f" field {self.field}"
        return f"{where}: {self.message}"


class ReportedVerdict(BaseModel):
    """The verdict a transcript file gives its own session (what we compare ours with)."""

    model_config = ConfigDict(extra="forbid")

    reward: float | None = None
    success: bool | None = None
    db_match: bool | None = None
    """The file's own DB-state verdict, when it has one (tau2 `db_check.db_match`)."""
    detail: dict[str, Any] | None = None
    """The file's verdict record as given (tau2 `reward_info`, tau-bench `info`)."""


class ImportedSession(BaseModel):
    """One imported session, the scenario it was graded against, and its reported verdict."""

    model_config = ConfigDict(extra="forbid")

    index: int
    """Position of the record in the file."""
    session: Session
    scenario: Scenario | None = None
    reported: ReportedVerdict | None = None


class ImportResult(BaseModel):
    """Sessions read from one file, and every problem met on the way."""

    model_config = ConfigDict(extra="forbid")

    format: str
    source: str
    domain: str | None = None
    """The domain the file's sessions ran in, when the file or the caller says."""
    sessions: list[ImportedSession] = Field(default_factory=list)
    errors: list[RecordError] = Field(default_factory=list)

    @property
    def skipped(self) -> list[RecordError]:
        """The problems that cost a record."""
        return [e for e in self.errors if e.fatal]


def first_problem(exc: ValidationError, prefix: str = "") -> tuple[str, str]:
    """(dotted field path, message) of a validation error's first problem; the message says
    how many more there were (a record error carries its field apart)."""
    problems = validation_problems(exc, prefix)
    path, msg = problems[0]
    more = len(problems) - 1
    return path, msg + (f" (and {more} more problems)" if more else "")


_EPOCH = dt.datetime(1970, 1, 1)
"""The Unix epoch, naive: a naive time is UTC, and subtracting is what `timestamp()` does."""


def parse_time(value: object) -> float | None:
    """Unix seconds from an ISO-8601 text or a number; None when absent or unreadable."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str) and value:
        try:
            stamp = dt.datetime.fromisoformat(
                value.replace("Z", "+00:00") if "Z" in value else value
            )
        except ValueError:
            return None
        if stamp.tzinfo is None:
            # The same difference `replace(tzinfo=UTC).timestamp()` takes, without building
            # an aware copy first (a third of the cost, on 28,000 message times per file).
            return (stamp - _EPOCH).total_seconds()
        return stamp.timestamp()
    return None


def looks_like_error(text: str) -> bool:
    """True for a recorded tool reply that reports a failure the tau way ("Error: ...")."""
    return text.startswith("Error:") or text.startswith("Unknown action ")


_SESSION_TEXTS = ("run_id", "session_id", "scenario_id", "model", "termination_detail")
_EVENT_MODELS = frozenset(EVENT_MODELS.values())


class SessionBuilder:
    """Turns a conversation, message by message, into numbered events.

    turn = user messages so far minus one (a greeting before the first user message is turn 0);
    step = agent decisions so far: a text reply is one, each tool call is one.
    """

    def __init__(self, run_id: str, session_id: str, start: float | None = None) -> None:
        self.run_id = run_id
        self.session_id = session_id
        self.events: list[Event] = []
        self.turn = 0
        self.step = 0
        self._users = 0
        self.start = start
        self._last = start or 0.0
        self._pending: dict[str, ToolCall] = {}
        self._call_steps: dict[str, int] = {}
        self._user_pending: dict[str, ToolCall] = {}

    def _emit(self, kind: EventKind, payload: EventPayload, at: float | None) -> None:
        if at is not None:
            self._last = at
            if self.start is None:
                self.start = at
        t_wall = self._last
        self.events.append(
            make_event(
                kind,
                payload,
                run_id=self.run_id,
                session_id=self.session_id,
                seq=len(self.events),
                turn=self.turn,
                step=self.step,
                t_wall=t_wall,
                t_mono=t_wall - (self.start or t_wall),
            )
        )

    def user(self, text: str, at: float | None = None) -> None:
        """A user message."""
        if self._users:
            self.turn += 1
        self._users += 1
        self._emit(EventKind.user_message, Message.user(text), at)

    def assistant(self, text: str | None, calls: list[ToolCall], at: float | None = None) -> None:
        """An assistant message and the tool calls it carries (results come separately)."""
        msg = Message.assistant(text, calls)
        self._emit(EventKind.assistant_message, msg, at)
        if not calls:
            self.step += 1
        for call in calls:
            self._pending[call.id] = call
            self._call_steps[call.id] = self.step
            self._emit(EventKind.tool_call, call, at)
            # Each call is its own step; its result is filed under the same step.
            self.step += 1

    def model_call(self, call: ModelCall, at: float | None = None) -> None:
        """One model call (usage, latency) the log records for the next agent message."""
        self._emit(EventKind.model_call, call, at)

    def knows_call(self, call_id: str) -> bool:
        """True when a call with this id was already recorded in the session."""
        return call_id in self._call_steps

    def tool_result(
        self,
        call_id: str,
        output: str,
        failed: bool | None,
        at: float | None = None,
        *,
        error: str | None = None,
        error_class: ErrorClass | None = None,
    ) -> ToolCall | None:
        """The reply to an earlier call; returns that call (None when no unanswered call has
        this id: the result is still recorded, its tool name empty). A log that records the
        failure apart from the output passes its text as `error` (and its class, if known)."""
        call = self._pending.pop(call_id, None)
        name = call.name if call else ""
        if failed is None:
            failed = looks_like_error(output) or error is not None
        error_text = (error or output.removeprefix("Error:").strip()) if failed else None
        if failed and error_class is None:
            error_class = classify_text(error or output, ErrorClass.validation_error)
        values: dict[str, Any] = {
            "call_id": call_id,
            "name": name,
            "output": output,
            "error_class": error_class if failed else None,
            "error": error_text,
        }
        result = (
            trusted(ToolResult, values)
            if type(call_id) is str
            and type(name) is str
            and type(output) is str
            and (error_text is None or type(error_text) is str)
            and (values["error_class"] is None or type(values["error_class"]) is ErrorClass)
            else ToolResult(**values)
        )
        # File the result under the step of its call, not the current one.
        saved, self.step = self.step, self._call_steps.get(call_id, self.step)
        self._emit(EventKind.tool_result, result, at)
        self.step = saved
        return call

    def user_calls(self, calls: list[ToolCall], at: float | None = None) -> None:
        """Calls the user made on its own tools (dual control); results come separately."""
        for call in calls:
            self._user_pending[call.id] = call
            self._emit(EventKind.user_tool_call, call, at)

    def user_tool_result(
        self, call_id: str, output: str, failed: bool | None, at: float | None = None
    ) -> ToolCall | None:
        """The reply to an earlier call of the user's; returns that call (None when the user
        made no unanswered call with this id: the result is still recorded, its name empty)."""
        call = self._user_pending.pop(call_id, None)
        if failed is None:
            failed = looks_like_error(output)
        result = ToolResult(
            call_id=call_id,
            name=call.name if call else "",
            output=output,
            error_class=classify_text(output, ErrorClass.validation_error) if failed else None,
            error=output.removeprefix("Error:").strip() if failed else None,
        )
        self._emit(EventKind.user_tool_result, result, at)
        return call

    def end(self, termination: TerminationReason, detail: str = "") -> None:
        """The end event."""
        values = {"termination": termination, "detail": detail}
        ended = (
            trusted(Termination, values)
            if type(termination) is TerminationReason and type(detail) is str
            else Termination(termination=termination, detail=detail)
        )
        self._emit(EventKind.end, ended, None)

    def session(
        self,
        scenario_id: str,
        trial: int,
        termination: TerminationReason,
        detail: str = "",
        model: str = "",
        metadata: Mapping[str, Any] | None = None,
    ) -> Session:
        """The finished session (adds the end event)."""
        self.end(termination, detail)
        start = self.start if self.start is not None else time.time()
        values: dict[str, Any] = {
            "run_id": self.run_id,
            "session_id": self.session_id,
            "scenario_id": scenario_id,
            "trial": trial,
            "model": model,
            "events": list(self.events),  # validation copies the list too
            "termination": termination,
            "termination_detail": detail,
            "started_at": start,
            "ended_at": self._last or start,
            "metadata": dict(metadata or {}),
        }
        if (
            all(type(values[k]) is str for k in _SESSION_TEXTS)
            and type(trial) is int
            and type(termination) is TerminationReason
            and type(values["started_at"]) is float
            and type(values["ended_at"]) is float
            and all(type(k) is str for k in values["metadata"])
            and all(type(e) in _EVENT_MODELS for e in self.events)
        ):
            # Checked above to be what validation returns (the events are this builder's
            # own): the same session without validating it again.
            return trusted(Session, values)
        return Session(**values)


def _call(values: dict[str, Any]) -> ToolCall:
    """The ToolCall of `values`, unvalidated when they are already of its fields' types
    (str id and name; arguments a fresh dict with str keys, or None; raw text and error
    str or None)."""
    arguments = values.get("arguments")
    if (
        type(values["id"]) is str
        and type(values["name"]) is str
        and (
            arguments is None
            or (type(arguments) is dict and all(type(k) is str for k in arguments))
        )
        and all(
            values.get(k) is None or type(values[k]) is str
            for k in ("raw_arguments", "parse_error")
        )
    ):
        return trusted(ToolCall, values)
    return ToolCall(**values)


def tool_call(call_id: str, name: str, arguments: object) -> ToolCall:
    """A ToolCall from recorded arguments: an object, JSON text, or something unusable."""
    if type(arguments) is dict or isinstance(arguments, Mapping):  # the ABC check is slow
        return _call({"id": call_id, "name": name, "arguments": dict(arguments)})
    if arguments is not None and not isinstance(arguments, str):
        kind = type(arguments).__name__
        return _call(
            {
                "id": call_id,
                "name": name,
                "raw_arguments": str(arguments),
                "parse_error": f"arguments must be an object or JSON text, got {kind}",
            }
        )
    parsed, problem = parse_arguments(arguments)  # a new dict (or None): ours to hand over
    raw = arguments or None
    return _call(
        {
            "id": call_id,
            "name": name,
            "arguments": parsed,
            "raw_arguments": raw,
            "parse_error": problem,
        }
    )


def call_problems(
    call: ToolCall,
    *,
    where: str,
    arguments_field: str,
    index: int,
    record_id: str | None,
    tools: set[str] | frozenset[str] | None,
) -> list[RecordError]:
    """Non-fatal problems of one recorded call: unparsable arguments, a tool the domain lacks.

    The call is kept either way (replayed as a failing call or a no-op), so the record still
    scores; the problems are reported beside it.
    """
    problems: list[RecordError] = []
    if call.parse_error:
        problems.append(
            RecordError(
                index=index,
                field=f"{where}.{arguments_field}",
                message=f"not a JSON object: {call.parse_error}",
                record_id=record_id,
                fatal=False,
            )
        )
    if tools is not None and call.name not in tools:
        problems.append(
            RecordError(
                index=index,
                field=f"{where}.name",
                message=f"unknown tool {call.name!r}; kept, replayed as a no-op",
                record_id=record_id,
                fatal=False,
            )
        )
    return problems


def repeated_call_ids(
    builder: SessionBuilder,
    calls: list[ToolCall],
    *,
    fields: list[str],
    index: int,
    record_id: str | None,
) -> list[RecordError]:
    """Warnings for calls of one message whose id an earlier call already has.

    The calls are kept; a result can then answer only the later one, so the earlier looks
    unanswered. `fields` holds each call's path in the record ("messages.3.tool_calls.0").
    """
    problems: list[RecordError] = []
    seen: set[str] = set()
    for call, where in zip(calls, fields, strict=True):
        if builder.knows_call(call.id) or call.id in seen:
            problems.append(
                RecordError(
                    index=index,
                    field=f"{where}.id",
                    message=f"call id {call.id!r} repeats an earlier call's id; results may "
                    "answer the wrong call",
                    record_id=record_id,
                    fatal=False,
                )
            )
        seen.add(call.id)
    return problems


def unanswered_result(
    call_id: str, *, field: str, index: int, record_id: str | None
) -> RecordError:
    """The warning for a tool result whose id matches no unanswered call (kept, unnamed)."""
    return RecordError(
        index=index,
        field=field,
        message=f"tool result for call id {call_id!r} answers no earlier call (unknown id, "
        "or that call was answered already); kept without a tool name",
        record_id=record_id,
        fatal=False,
    )


def distinct_trials(items: list[ImportedSession], *, keep: set[int] | None = None) -> None:
    """Number the trials of sessions that share a scenario and arm 0, 1, 2, ... in file order.

    A foreign log rarely says which trial a session was, and the store keeps one session per
    (scenario, trial, arm): without this, the second session of a task would be refused.
    Sessions whose position is in `keep` said their trial themselves and keep it.
    """
    taken = {
        (i.session.scenario_id, i.session.trial, i.session.arm)
        for i in items
        if keep is not None and i.index in keep
    }
    for item in items:
        if keep is not None and item.index in keep:
            continue
        s = item.session
        trial = 0
        while (s.scenario_id, trial, s.arm) in taken:
            trial += 1
        taken.add((s.scenario_id, trial, s.arm))
        if trial != s.trial:
            item.session = s.model_copy(update={"trial": trial})
