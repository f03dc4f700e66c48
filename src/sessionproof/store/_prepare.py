"""Sessions flattened into the store's rows: counts derived, events checked, secrets scrubbed.

A batch is prepared as a whole: every JSON text of it (payloads, outcomes, metadata) is
tested for something to redact in one pass (`_scan.may_hold`), and only the texts flagged
are scrubbed value by value. What a session's rows hold, and which error a bad session
raises, do not depend on the batch it came in.
"""

from __future__ import annotations

import functools
import math
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

import orjson
from pydantic import BaseModel
from pydantic_core import PydanticSerializationError

from ..errors import StoreError
from ..records import (
    AssistantMessageEvent,
    EventKind,
    Session,
    ToolCallEvent,
    ToolResultEvent,
)
from ._rows import to_json, without_surrogates
from ._scan import may_hold
from ._scrub import Scrubber

_KIND_TEXT = {kind: kind.value for kind in EventKind}
"""Each kind's plain text (an enum's `.value` costs a descriptor call per event)."""

_INT32 = (-(2**31), 2**31 - 1, 32)
_INT64 = (-(2**63), 2**63 - 1, 64)
"""What the store's INTEGER and BIGINT columns hold (lowest, highest, bits)."""


_Column = tuple[str, Sequence[int], tuple[int, int, int]]


def _check_ints(where: str, columns: Sequence[_Column]) -> None:
    """Raise StoreError naming the first value beyond what its store column holds (checked
    before any write: such a value must cost its session, not fail a transaction part-way)."""
    for name, values, (low, high, bits) in columns:
        if values and not (low <= min(values) and max(values) <= high):
            bad = next(v for v in values if not low <= v <= high)
            raise StoreError(
                f"{where}: {name} {bad} is beyond what the store holds (a {bits}-bit integer)"
            )


@functools.cache
def _float_fields(model: type[BaseModel]) -> tuple[str, ...]:
    """The model's own float fields (a latency, a reward)."""
    return tuple(
        name
        for name, info in model.model_fields.items()
        if info.annotation in (float, float | None)
    )


def _finite_text(value: dict[str, Any], fields: tuple[str, ...]) -> None:
    """Spell out an infinite or NaN float of `fields` in `value` as pydantic reads it back
    ("Infinity", "-Infinity", "NaN"): JSON has no literal for it, and the `null` orjson
    writes instead does not read back into a float field (the session would not load)."""
    for name in fields:
        x = value.get(name)
        if isinstance(x, float) and not math.isfinite(x):
            value[name] = "NaN" if math.isnan(x) else ("Infinity" if x > 0 else "-Infinity")


@dataclass(frozen=True)
class SessionWrite:
    """A session flattened, scrubbed and checked, ready for one transaction."""

    session: list[Any]
    """Parameters of the `sessions` row, in `SESSION_COLUMNS` order."""
    events: list[list[Any]]
    """The events column by column, in `EVENT_COLUMNS` order (empty lists for none)."""


@dataclass
class _Flat:
    """One session flattened, its JSON texts not yet scrubbed."""

    write: SessionWrite
    texts: list[str]
    """The payloads' JSON, then the outcome's (if any), then the metadata's."""
    values: list[Any]
    """The plain JSON value of each text, for scrubbing it value by value."""
    wheres: list[str]
    """What each text is, for an error message."""
    has_outcome: bool


def _payload_values(session: Session, where: str) -> tuple[list[Any], list[int], list[int]]:
    """(payload values, seqs, [tool calls, tool errors, replies without calls]), checked
    event by event."""
    run_id, session_id = session.run_id, session.session_id
    values: list[Any] = []
    seqs: list[int] = []
    n_tool_calls = n_tool_errors = n_replies = 0
    for event in session.events:
        if event.run_id != run_id or event.session_id != session_id:
            raise StoreError(
                f"{where}: event seq {event.seq} belongs to session {event.session_id!r} "
                f"of run {event.run_id!r}"
            )
        payload = event.payload
        if isinstance(event, ToolCallEvent):
            n_tool_calls += 1
        elif isinstance(event, AssistantMessageEvent):
            n_replies += not event.payload.tool_calls
        elif isinstance(event, ToolResultEvent) and event.payload.error_class:
            n_tool_errors += 1
        seqs.append(event.seq)
        try:
            # The serializer itself: `model_dump` adds ~1.5 µs of argument handling per event.
            value = payload.__pydantic_serializer__.to_python(payload, mode="json")
        # An object() inside tool arguments; ValueError: arguments nested past pydantic's
        # 255 levels (a model's reply parsed by json.loads may be), which escaped as a
        # ValueError instead of the store's named error.
        except (PydanticSerializationError, ValueError) as exc:
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise StoreError(
                f"{where}: event seq {event.seq} is not JSON-serialisable: {first}"
            ) from exc
        if fields := _float_fields(type(payload)):
            _finite_text(value, fields)
        values.append(value)
    return values, seqs, [n_tool_calls, n_tool_errors, n_replies]


def _flatten(session: Session, scrubber: Scrubber) -> _Flat:
    where = f"session {session.session_id!r} of run {session.run_id!r}"
    events = session.events
    n = len(events)
    values, seqs, (n_tool_calls, n_tool_errors, n_replies) = _payload_values(session, where)
    if len(set(seqs)) != n:
        repeated = sorted({s for s in seqs if seqs.count(s) > 1})
        raise StoreError(f"{where}: event seq repeated: {repeated}")
    texts: list[str] = []
    for value, seq in zip(values, seqs, strict=True):
        try:
            texts.append(orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode())
        except TypeError:  # surrogates, or something to name in the error: the full path
            texts.append(to_json(value, f"{where}: event seq {seq}"))
    wheres = [""] * n  # named only when a text is re-serialised after scrubbing
    turns = [e.turn for e in events]
    steps = [e.step for e in events]
    usage = session.usage
    _check_ints(
        where,
        [
            ("trial", [session.trial], _INT32),
            ("event seq", seqs, _INT64),
            ("event step", steps, _INT64),
            # The session row counts turns (the last + 1) in an INTEGER.
            ("event turn", turns, (_INT32[0], _INT32[1] - 1, 32)),
            ("input tokens", [usage.input_tokens], _INT64),
            ("output tokens", [usage.output_tokens], _INT64),
        ],
    )
    outcome = session.outcome
    if outcome is not None:
        value = outcome.model_dump(mode="json")
        _finite_text(value, _float_fields(type(outcome)))
        texts.append(to_json(value, f"{where}: outcome"))
        values.append(value)
        wheres.append(f"{where}: outcome")
    texts.append(to_json(session.metadata, f"{where}: metadata"))
    values.append(session.metadata)
    wheres.append(f"{where}: metadata")
    columns: list[list[Any]] = [
        [session.run_id] * n,
        [session.session_id] * n,
        seqs,
        turns,
        steps,
        [e.t_wall for e in events],
        [e.t_mono for e in events],
        [_KIND_TEXT[e.kind] for e in events],
        [],  # the payloads, once scrubbed
    ]
    # The run id is kept as is: the run's own row, written first, is found by it.
    row = [
        session.run_id,
        scrubber.text(session.session_id),
        scrubber.text(session.scenario_id),
        session.trial,
        scrubber.text(session.arm),
        scrubber.text(without_surrogates(session.model)),
        # An outcome that could not be judged is stored as no verdict, like no outcome.
        None if outcome is None or not outcome.judged else outcome.success,
        None if outcome is None or not outcome.judged else outcome.reward,
        session.termination.value,
        scrubber.text(without_surrogates(session.termination_detail)),
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
        None,  # outcome, once scrubbed
        None,  # metadata, once scrubbed
        to_json(session.usage.model_dump(mode="json"), f"{where}: usage"),
    ]
    write = SessionWrite(session=row, events=columns)
    return _Flat(write, texts, values, wheres, outcome is not None)


def prepare_batch(sessions: Sequence[Session]) -> list[SessionWrite]:
    """Flatten `sessions` for the store: scrub secrets, derive the counts, check the events.

    Raises StoreError, naming the first session at fault, before anything is written when a
    session is inconsistent (an event of another session, a repeated seq) or a payload,
    its outcome or its metadata cannot be stored as JSON.
    """
    scrubber = Scrubber()  # the known secrets, looked up once for the whole batch
    flats = [_flatten(session, scrubber) for session in sessions]
    texts = [text for flat in flats for text in flat.texts]
    starts = list(accumulate((len(flat.texts) for flat in flats), initial=0))
    for position in may_hold(scrubber, texts):
        f = bisect_right(starts, position) - 1
        flat, i = flats[f], position - starts[f]
        where = flat.wheres[i] or _event_where(sessions[f], flat.write.events[2][i])
        flat.texts[i] = to_json(scrubber.value(flat.values[i]), where)
    out: list[SessionWrite] = []
    for flat in flats:
        n = len(flat.write.events[0])
        flat.write.events[-1].extend(flat.texts[:n])
        row = flat.write.session
        if flat.has_outcome:
            row[-3] = flat.texts[n]
        row[-2] = flat.texts[-1]
        out.append(flat.write)
    return out


def _event_where(session: Session, seq: int) -> str:
    return f"session {session.session_id!r} of run {session.run_id!r}: event seq {seq}"


def prepare(session: Session) -> SessionWrite:
    """One session flattened for the store (see `prepare_batch`)."""
    return prepare_batch([session])[0]


def unstorable(sessions: Sequence[Session]) -> dict[int, str]:
    """The position of each session the store cannot hold, with why (its own StoreError's
    text): each is prepared alone, so one bad session does not hide the others' fitness."""
    problems: dict[int, str] = {}
    for position, session in enumerate(sessions):
        try:
            prepare(session)
        except StoreError as exc:
            problems[position] = str(exc)
    return problems
