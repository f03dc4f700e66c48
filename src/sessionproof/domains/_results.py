"""Tool results: how a source turns a value or an exception into the `ToolResult` an agent
sees (one rendering, one size limit, one exception rule for every source)."""

from __future__ import annotations

import json
import time
from typing import Any

from pydantic import BaseModel

from ..errors import ToolError, exception_text
from ..records import ErrorClass, ToolCall, ToolResult
from ..taxonomy._internal import classify_text

MAX_TOOL_OUTPUT_CHARS = 200_000
"""Tool output beyond this is cut and classified `truncated_output` (a 5 MB blob would drown
the context and the store)."""


def render_output(value: Any) -> str:
    """The text an agent sees for a tool's return value (JSON for structured values)."""
    if isinstance(value, str):
        return value
    if isinstance(value, BaseModel):
        return value.model_dump_json()
    if isinstance(value, list) and all(isinstance(v, BaseModel) for v in value):
        return "[" + ",".join(v.model_dump_json() for v in value) + "]"
    return json.dumps(value, default=str)


def error_result(call: ToolCall, error_class: ErrorClass, text: str, start: float) -> ToolResult:
    """A failed call: `Error: <text>` as output, classified; `start` is a perf_counter time."""
    return ToolResult(
        call_id=call.id,
        name=call.name,
        output=f"Error: {text}",
        error_class=error_class,
        error=text,
        latency_s=time.perf_counter() - start,
    )


def unparsed_result(call: ToolCall, start: float) -> ToolResult:
    """The result of a call whose arguments never parsed into a JSON object."""
    why = call.parse_error or "arguments are not a JSON object"
    return error_result(
        call, ErrorClass.validation_error, f"could not parse arguments: {why}", start
    )


def result_from_exception(call: ToolCall, exc: Exception, start: float) -> ToolResult:
    """A tool's exception as a result: a `ToolError` keeps its class; anything else is
    classified from its text (a bare bug reads as validation_error, as tau2 answers it)."""
    text = exception_text(exc)
    if isinstance(exc, ToolError):
        try:
            error_class = ErrorClass(exc.error_class)
        except ValueError:
            error_class = ErrorClass.unknown
        return error_result(call, error_class, text, start)
    return error_result(call, classify_text(text, ErrorClass.validation_error), text, start)


def result_from_value(call: ToolCall, value: Any, start: float) -> ToolResult:
    """A tool's return value as a result: rendered, and cut when it is too long."""
    try:
        output = render_output(value)
    except (TypeError, ValueError) as exc:
        text = f"unserialisable result: {exception_text(exc)}"
        return error_result(call, ErrorClass.malformed_output, text, start)
    if len(output) > MAX_TOOL_OUTPUT_CHARS:
        size = len(output)
        return ToolResult(
            call_id=call.id,
            name=call.name,
            output=output[:MAX_TOOL_OUTPUT_CHARS] + f"\n[truncated: {size} characters]",
            error_class=ErrorClass.truncated_output,
            error=f"tool output of {size} characters cut to {MAX_TOOL_OUTPUT_CHARS}",
            latency_s=time.perf_counter() - start,
        )
    return ToolResult(
        call_id=call.id, name=call.name, output=output, latency_s=time.perf_counter() - start
    )
