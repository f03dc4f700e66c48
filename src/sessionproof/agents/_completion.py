"""A chat-completions response body read straight from its JSON bytes.

The openai SDK would build its typed `ChatCompletion` (a walk over every field, ~1 ms a
reply); the adapter needs six values, so it reads them from the parsed JSON here, as
leniently as the SDK's own unvalidated construction: a missing or mistyped field reads as
absent. Only a body that is not a JSON object with a non-empty `choices` list is refused.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from ..errors import InfraError


@dataclass(frozen=True)
class RawCall:
    """One tool call as the server sent it."""

    id: str | None
    name: str
    arguments: str | dict[str, Any] | None


@dataclass(frozen=True)
class Completion:
    """What the adapter reads from one reply."""

    id: str | None
    finish_reason: str | None
    content: str | None
    calls: list[RawCall] = field(default_factory=list)
    legacy_call: RawCall | None = None
    """A pre-tools `function_call`, read only when there are no tool calls."""
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _call(raw: Any) -> RawCall | None:
    if not isinstance(raw, dict):
        return None
    fn = raw.get("function")
    if isinstance(fn, dict):
        name, args = fn.get("name"), fn.get("arguments")
    else:
        # A custom (free-text) tool call: kept, its input is the raw argument text.
        custom = _dict(raw.get("custom"))
        name, args = custom.get("name"), custom.get("input")
    if not (args is None or isinstance(args, str | dict)):
        args = orjson.dumps(args).decode()
    return RawCall(id=_str(raw.get("id")), name=_str(name) or "", arguments=args)


def read_completion(body: bytes, provider: str) -> Completion:
    """The reply in `body`; raises `InfraError` when it is not a chat completion."""
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError:
        raise InfraError(f"{provider}: the response is not JSON") from None
    choices = data.get("choices") if isinstance(data, dict) else None
    if not isinstance(choices, list) or not choices:
        raise InfraError(f"{provider}: the response carried no choices")
    choice = _dict(choices[0])
    message = _dict(choice.get("message"))
    calls = [c for c in map(_call, message.get("tool_calls") or []) if c is not None]
    legacy_fn = message.get("function_call")
    legacy = _call({"function": legacy_fn}) if not calls and isinstance(legacy_fn, dict) else None
    usage = _dict(data.get("usage"))
    details = _dict(usage.get("prompt_tokens_details"))
    return Completion(
        id=_str(data.get("id")) or None,
        finish_reason=_str(choice.get("finish_reason")),
        content=_str(message.get("content")),
        calls=calls,
        legacy_call=legacy,
        input_tokens=_int(usage.get("prompt_tokens")),
        output_tokens=_int(usage.get("completion_tokens")),
        cached_tokens=_int(details.get("cached_tokens")),
    )
