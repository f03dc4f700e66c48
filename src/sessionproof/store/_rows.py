"""The store's columns, JSON text of values, and typed Sessions read back from rows."""

from __future__ import annotations

from typing import Any

import orjson
from pydantic import BaseModel, ValidationError

from ..errors import StoreError
from ..records import Event, Outcome, Session, TerminationReason, parse_events
from ..records._internal import Usage
from ._manifest import SessionRow

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


def _criteria_count(value: str) -> str:
    """SQL: how many of a stored outcome's criteria have `passed` equal to `value`."""
    passed = "json_extract(outcome, '$.criteria[*].passed')"
    return f"coalesce(len(list_filter({passed}, lambda x: x::VARCHAR = '{value}')), 0)"


_UNEVALUATED = _criteria_count("null")
_FAILED = _criteria_count("false")

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
    # Why a session without a verdict has none, and what its criteria left unevaluated:
    # read by DuckDB from the outcome JSON, so summaries parse no JSON in Python.
    "CASE WHEN outcome IS NULL THEN 'no outcome' ELSE outcome->>'$.not_judged' END",
    _UNEVALUATED,
    f"CASE WHEN success IS NULL THEN NULL WHEN {_UNEVALUATED} = 0 THEN success "
    f"ELSE {_FAILED} = 0 END",
)
"""What a `SessionRow` is selected from."""


def _default(value: Any) -> Any:
    # Payloads are meant to hold plain JSON, but a model dropped in whole is easy to forgive.
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, set | frozenset):
        return sorted(value, key=repr)
    raise TypeError(f"{type(value).__name__} is not JSON-serialisable")


def without_surrogates(value: Any) -> Any:
    """`value` with every lone surrogate in its strings (and keys) replaced by "?"."""
    if isinstance(value, str):
        return value.encode("utf-8", "replace").decode("utf-8")
    if isinstance(value, dict):
        return {without_surrogates(k): without_surrogates(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [without_surrogates(v) for v in value]
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
        return orjson.dumps(without_surrogates(value), default=_default, option=option).decode()
    except TypeError as exc:
        raise StoreError(f"{what} is not JSON-serialisable: {exc}") from exc


def _events(rows: list[tuple[Any, ...]], where: str) -> list[Event]:
    """Typed events from their `events` rows (EVENT_COLUMNS order), validated together."""
    data = []
    for row in rows:
        values = dict(zip(EVENT_COLUMNS, row, strict=True))
        values["payload"] = orjson.loads(values["payload"])
        data.append(values)
    try:
        return parse_events(data)
    except ValidationError as exc:
        problem = exc.errors()[0]
        index, *loc = problem["loc"]
        bad = data[int(index)]
        at = ".".join(str(p) for p in loc)
        raise StoreError(
            f"{where}: event seq {bad['seq']} ({bad['kind']}) does not read: {at}: {problem['msg']}"
        ) from exc


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
        events=_events(events, where),
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
    values["not_judged"] = values.pop(ROW_COLUMNS[-3])
    values["unevaluated"] = values.pop(ROW_COLUMNS[-2])
    values["evaluated_success"] = values.pop(ROW_COLUMNS[-1])
    return SessionRow.model_validate(values)
