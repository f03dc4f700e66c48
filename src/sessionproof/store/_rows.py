"""Conversion between typed Sessions and the store's rows (scrubbed on the way in)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson
from pydantic import BaseModel, ValidationError
from pydantic_core import PydanticSerializationError

from ..errors import StoreError
from ..records import (
    AssistantMessageEvent,
    Event,
    Outcome,
    Session,
    TerminationReason,
    ToolCallEvent,
    ToolResultEvent,
    Usage,
    parse_event,
)
from ._manifest import SessionRow
from ._scrub import Scrubber

SESSION_COLUMNS = (
    "run_id",
    "session_id",
    "scenario_id",
    "trial",
    "arm",
    "model",
    "success",
    "reward",
    "termination",
    "termination_detail",
    "n_turns",
    "n_steps",
    "n_tool_calls",
    "n_tool_errors",
    "input_tokens",
    "output_tokens",
    "started_at",
    "ended_at",
    "outcome",
    "metadata",
    "usage",
)
"""Column order of the `sessions` table, as `prepare` fills it."""

EVENT_COLUMNS = (
    "run_id",
    "session_id",
    "seq",
    "turn",
    "step",
    "t_wall",
    "t_mono",
    "kind",
    "payload",
)
"""Column order of the `events` table."""

ROW_COLUMNS = (
    "session_id",
    "scenario_id",
    "trial",
    "arm",
    "model",
    "success",
    "reward",
    "termination",
    "n_turns",
    "n_steps",
    "n_tool_calls",
    "n_tool_errors",
    "input_tokens",
    "output_tokens",
    "ended_at - started_at",
)
"""What a `SessionRow` is selected from."""


def _default(value: Any) -> Any:
    # Payloads are meant to hold plain JSON, but a model dropped in whole is easy to forgive.
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, set | frozenset):
        return sorted(value, key=repr)
    raise TypeError(f"{type(value).__name__} is not JSON-serialisable")


def _without_surrogates(value: Any) -> Any:
    if isinstance(value, str):
        return value.encode("utf-8", "replace").decode("utf-8")
    if isinstance(value, dict):
        return {_without_surrogates(k): _without_surrogates(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_without_surrogates(v) for v in value]
    return value


def to_json(value: Any, what: str) -> str:
    """`value` as JSON text; a StoreError naming `what` when it cannot be serialised."""
    option = orjson.OPT_NON_STR_KEYS
    try:
        return orjson.dumps(value, default=_default, option=option).decode()
    except TypeError as exc:
        if "surrogates" not in str(exc):
            raise StoreError(f"{what} is not JSON-serialisable: {exc}") from exc
    # A lone surrogate (half of a broken emoji from a model) is not worth losing a session:
    # it becomes "?" and the rest of the text is kept.
    try:
        return orjson.dumps(_without_surrogates(value), default=_default, option=option).decode()
    except TypeError as exc:
        raise StoreError(f"{what} is not JSON-serialisable: {exc}") from exc


def scrubbed_json(scrubber: Scrubber, value: Any, what: str) -> str:
    """`value` as JSON text with every secret redacted.

    Serialised first, and scrubbed piece by piece only when the text may hold something to
    redact: most payloads hold none, and one test of the whole text is far cheaper than
    walking every string in it. Sound because the JSON text holds every key and string of
    `value`, escaped only where a secret's JSON-escaped form is also searched for.
    """
    text = to_json(value, what)
    if not scrubber.might_hold(text):
        return text
    return to_json(scrubber.value(value), what)


def _payload_value(event: Event, what: str) -> Any:
    """The event's payload as the plain JSON value the store holds for its kind."""
    try:
        return event.payload.model_dump(mode="json")
    except PydanticSerializationError as exc:  # e.g. an object() inside tool arguments
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise StoreError(f"{what} is not JSON-serialisable: {first}") from exc


def _scrubbed_payloads(scrubber: Scrubber, values: list[Any], wheres: list[str]) -> list[str]:
    """Every payload of a session as scrubbed JSON text.

    Serialised first and tested once as a whole: when the session's joined text holds
    nothing to redact, no part of it can (a marker or secret inside one payload is inside
    the joined text), so the per-payload tests are skipped. Most sessions hold none.
    """
    texts = [to_json(value, where) for value, where in zip(values, wheres, strict=True)]
    if not scrubber.might_hold("\n".join(texts)):
        return texts
    return [
        text if not scrubber.might_hold(text) else to_json(scrubber.value(value), where)
        for text, value, where in zip(texts, values, wheres, strict=True)
    ]


def _event(row: tuple[Any, ...], where: str) -> Event:
    """A typed event from its `events` row (EVENT_COLUMNS order)."""
    data = dict(zip(EVENT_COLUMNS, row, strict=True))
    data["payload"] = orjson.loads(data["payload"])
    try:
        return parse_event(data)
    except ValidationError as exc:
        problem = exc.errors()[0]
        at = ".".join(str(p) for p in problem["loc"])
        raise StoreError(
            f"{where}: event seq {data['seq']} ({data['kind']}) does not read: "
            f"{at}: {problem['msg']}"
        ) from exc


@dataclass(frozen=True)
class SessionWrite:
    """A session flattened, scrubbed and checked, ready for one transaction."""

    session: list[Any]
    """Parameters of the `sessions` row, in `SESSION_COLUMNS` order."""
    events: list[list[Any]]
    """The events column by column, in `EVENT_COLUMNS` order (empty lists for none)."""


def prepare(session: Session) -> SessionWrite:
    """Flatten `session` for the store: scrub secrets, derive the counts, check the events.

    Raises StoreError before anything is written when the session is inconsistent (an event
    of another session, a repeated seq) or a payload cannot be stored as JSON.
    """
    where = f"session {session.session_id!r} of run {session.run_id!r}"
    scrubber = Scrubber()  # the known secrets, looked up once for the whole session
    n = len(session.events)
    cols: list[list[Any]] = [[session.run_id] * n, [session.session_id] * n]
    seqs: list[int] = []
    turns: list[int] = []
    steps: list[int] = []
    walls: list[float] = []
    monos: list[float] = []
    kinds: list[str] = []
    values: list[Any] = []
    wheres: list[str] = []
    n_tool_calls = n_tool_errors = n_replies = 0
    for event in session.events:
        if event.run_id != session.run_id or event.session_id != session.session_id:
            raise StoreError(
                f"{where}: event seq {event.seq} belongs to session {event.session_id!r} "
                f"of run {event.run_id!r}"
            )
        if isinstance(event, ToolCallEvent):
            n_tool_calls += 1
        elif isinstance(event, AssistantMessageEvent) and not event.payload.tool_calls:
            n_replies += 1
        elif isinstance(event, ToolResultEvent) and event.payload.error_class:
            n_tool_errors += 1
        seqs.append(event.seq)
        turns.append(event.turn)
        steps.append(event.step)
        walls.append(event.t_wall)
        monos.append(event.t_mono)
        kinds.append(event.kind.value)
        at = f"{where}: event seq {event.seq}"
        values.append(_payload_value(event, at))
        wheres.append(at)
    if len(set(seqs)) != n:
        repeated = sorted({s for s in seqs if seqs.count(s) > 1})
        raise StoreError(f"{where}: event seq repeated: {repeated}")
    payloads = _scrubbed_payloads(scrubber, values, wheres)
    cols += [seqs, turns, steps, walls, monos, kinds, payloads]
    outcome = session.outcome
    # The run id is kept as is: the run's own row, written first, is found by it.
    row = [
        session.run_id,
        scrubber.text(session.session_id),
        scrubber.text(session.scenario_id),
        session.trial,
        scrubber.text(session.arm),
        scrubber.text(_without_surrogates(session.model)),
        None if outcome is None else outcome.success,
        None if outcome is None else outcome.reward,
        session.termination.value,
        scrubber.text(_without_surrogates(session.termination_detail)),
        max(turns) + 1 if n else 0,
        # A step is one agent decision: each tool call run, and each reply without calls
        # (the step index of the last event overcounts: `end` and `verdict` sit one past it).
        n_tool_calls + n_replies,
        n_tool_calls,
        n_tool_errors,
        session.usage.input_tokens,
        session.usage.output_tokens,
        session.started_at,
        session.ended_at,
        None
        if outcome is None
        else scrubbed_json(scrubber, outcome.model_dump(mode="json"), f"{where}: outcome"),
        scrubbed_json(scrubber, session.metadata, f"{where}: metadata"),
        to_json(session.usage.model_dump(mode="json"), f"{where}: usage"),
    ]
    return SessionWrite(session=row, events=cols)


def session_from_rows(row: tuple[Any, ...], events: list[tuple[Any, ...]]) -> Session:
    """Rebuild a typed Session from its `sessions` row (SESSION_COLUMNS order) and its
    `events` rows (EVENT_COLUMNS order, already sorted by seq)."""
    values = dict(zip(SESSION_COLUMNS, row, strict=True))
    outcome_json = values["outcome"]
    where = f"session {values['session_id']!r} of run {values['run_id']!r}"
    return Session(
        run_id=values["run_id"],
        session_id=values["session_id"],
        scenario_id=values["scenario_id"],
        trial=values["trial"],
        arm=values["arm"],
        model=values["model"],
        events=[_event(e, where) for e in events],
        termination=TerminationReason(values["termination"]),
        termination_detail=values["termination_detail"],
        outcome=None if outcome_json is None else Outcome.model_validate_json(outcome_json),
        usage=Usage.model_validate_json(values["usage"]),
        started_at=values["started_at"],
        ended_at=values["ended_at"],
        metadata=orjson.loads(values["metadata"]),
    )


def session_row(row: tuple[Any, ...]) -> SessionRow:
    """A SessionRow from a tuple selected in ROW_COLUMNS order."""
    values = dict(zip(ROW_COLUMNS, row, strict=True))
    values["duration_s"] = values.pop("ended_at - started_at")
    return SessionRow.model_validate(values)
