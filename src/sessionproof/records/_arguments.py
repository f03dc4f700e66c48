"""Parsing a model's raw tool-call arguments: the one parser every layer uses."""

from __future__ import annotations

import json
from typing import Any

MAX_ARGUMENT_CHARS = 100_000
"""Tool-call argument text beyond this is not parsed (the call gets a parse error)."""


def _reject_constant(name: str) -> Any:
    # NaN and Infinity parse in Python but are not JSON: a dict holding them could not be
    # sent back to any provider, so they count as invalid arguments.
    raise ValueError(f"{name} is not valid JSON")


def parse_arguments(
    raw: str | dict[str, Any] | None,
) -> tuple[dict[str, Any] | None, str | None]:
    """Parse a model's raw tool-call arguments into a dict, or say why they cannot be.

    Returns `(arguments, None)` on success and `(None, reason)` otherwise. Absent or blank
    arguments mean "no arguments" (`{}`), as several providers send them for parameterless
    tools. Only a JSON object is accepted: an array, a string or a number is an error.
    """
    if raw is None:
        return {}, None
    if isinstance(raw, dict):
        return raw, None
    if not isinstance(raw, str):
        return None, f"expected a JSON object, got {type(raw).__name__}"
    if not raw.strip():
        return {}, None
    if len(raw) > MAX_ARGUMENT_CHARS:
        return None, f"arguments of {len(raw)} characters exceed the {MAX_ARGUMENT_CHARS} limit"
    try:
        value = json.loads(raw, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        return None, f"invalid JSON ({exc.msg} at position {exc.pos})"
    except ValueError as exc:
        return None, f"invalid JSON ({exc})"
    if not isinstance(value, dict):
        return None, f"expected a JSON object, got {_json_type(value)}"
    return value, None


def _json_type(value: Any) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return "null" if value is None else type(value).__name__
