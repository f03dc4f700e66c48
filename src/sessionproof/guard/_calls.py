"""From what a tool did to what the guard judges: arguments in, attempts out, messages."""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping
from typing import Any

import orjson
from pydantic import BaseModel

from ..records import ErrorClass
from ..taxonomy import classify_exception
from ..taxonomy._internal import classify_payload, retry_after_s
from ._hints import RepairHint
from ._run import Attempt


def _render(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, BaseModel):
        return value.model_dump_json()
    try:
        return orjson.dumps(value, default=str, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:  # orjson's limits (e.g. integers past 64 bits); json has fewer
        return json.dumps(value, default=str)


def _as_data(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def unknown_tool_hint(name: str, known: list[str]) -> RepairHint:
    """The hint for a call to a tool that does not exist."""
    close = difflib.get_close_matches(name, known, n=1)
    return RepairHint(
        path="(tool)",
        rule="tool",
        problem=f"no tool is named {name!r}",
        expected=", ".join(sorted(known)) if known else "none registered",
        suggestion=f"did you mean {close[0]!r}?" if close else None,
    )


def unknown_tool_text(hint: RepairHint) -> str:
    """The message for a call to a tool that does not exist."""
    text = f"Error: {hint.problem}; the call was not sent. Available tools: {hint.expected}."
    if not hint.suggestion:
        return text
    return f"{text} {hint.suggestion[:1].upper()}{hint.suggestion[1:]}"


def exception_text(exc: BaseException) -> str:
    """An exception's message, never raising: its own `__str__` may fail (then its repr, then
    its type name is shown)."""
    for show in (str, repr):
        try:
            text = show(exc)
        except Exception:  # a broken __str__/__repr__ is the tool's bug, not the guard's
            continue
        if text:
            return text
    return type(exc).__name__


def attempt_from_exception(exc: Exception) -> Attempt:
    """A failed attempt from what the tool raised: classified, with any Retry-After.

    Classification reads the message too, so an exception whose text cannot be had is
    classified `unknown` rather than let out of the guard.
    """
    try:
        error_class = classify_exception(exc)
        retry_after = retry_after_s(exc)
    except Exception:
        error_class, retry_after = ErrorClass.unknown, None
    return Attempt(
        ok=False,
        text=f"Error: {exception_text(exc)}",
        error_class=error_class,
        retry_after=retry_after,
    )


def attempt_from_value(value: Any) -> Attempt:
    """An attempt from what the tool returned: a success, or an error payload classified."""
    error_class = classify_payload(value)
    try:
        text = _render(value) if value is not None else ""
    except (TypeError, ValueError) as exc:
        return Attempt(
            ok=False,
            text=f"Error: the tool's result cannot be shown as JSON ({exc})",
            error_class=ErrorClass.malformed_output,
        )
    if error_class is None:
        return Attempt(ok=True, text=text, value=value, data=_as_data(value))
    shown = text if text[:6].lower() == "error:" else f"Error: {text or 'empty response'}"
    hint_source = value if isinstance(value, Mapping | str) else None
    return Attempt(
        ok=False, text=shown, error_class=error_class, retry_after=retry_after_s(hint_source)
    )
