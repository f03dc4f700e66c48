"""Classify failures into the taxonomy: from exceptions, HTTP statuses and error payloads.

The rules favour the class whose handling is safest when the evidence is thin: a connection
dropped mid-request becomes `server_error` (outcome unknown, so a write is not re-sent) rather
than `unavailable` (known not to have run), and a message nothing recognises is `unknown`,
which is never retried.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import json
import re
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..errors import ToolError
from ..records import ErrorClass

if TYPE_CHECKING:
    import httpx

_E = ErrorClass


def classify_status(status: int) -> ErrorClass | None:
    """The class of an HTTP status code; None for success and redirects (< 400)."""
    if status < 400:
        return None
    exact = {
        401: _E.auth_expired,
        407: _E.auth_expired,
        403: _E.policy_refusal,
        451: _E.policy_refusal,
        404: _E.not_found,
        410: _E.not_found,
        408: _E.timeout,
        504: _E.timeout,
        524: _E.timeout,
        429: _E.rate_limited,
        503: _E.unavailable,
        529: _E.unavailable,  # "overloaded", used by some model APIs
    }
    if status in exact:
        return exact[status]
    if 400 <= status < 500:
        return _E.validation_error  # 400, 409, 413, 422...: the request itself was wrong
    if 500 <= status < 600:
        return _E.server_error
    return _E.unknown


# Checked in order; the first pattern found in the lower-cased text wins. Specific phrases
# come before generic words ("401 unauthorized ... invalid token" is auth, not validation).
_TEXT_RULES: tuple[tuple[re.Pattern[str], ErrorClass], ...] = tuple(
    (re.compile(p), c)
    for p, c in (
        (
            r"\b429\b|rate.?limit|too many requests|quota exceeded|resource.?exhausted",
            _E.rate_limited,
        ),
        (
            r"\b401\b|unauthori[sz]ed|unauthenticated|(token|session|credential)s? (has |have )?"
            r"expired|expired (access )?token|authentication",
            _E.auth_expired,
        ),
        (r"\b(408|504)\b|\btimed? ?out\b|deadline.?exceeded", _E.timeout),
        (
            r"\b503\b|\b529\b|service unavailable|temporarily unavailable|overloaded|"
            r"connection refused|circuit open",
            _E.unavailable,
        ),
        (
            r"\b50[0-9]\b|internal server error|server error|bad gateway|internal error",
            _E.server_error,
        ),
        (
            r"\b403\b|forbidden|not allowed|not permitted|permission denied|refused|policy",
            _E.policy_refusal,
        ),
        (
            r"\b40[4]\b|\b410\b|not found|does not exist|no such|"
            r"unknown (order|customer|user|id|action)",
            _E.not_found,
        ),
        (r"truncat", _E.truncated_output),
        (
            r"malformed|could not (be )?parse|unparse?able|invalid json|not valid json|"
            r"decode error",
            _E.malformed_output,
        ),
        (
            r"does not match (its|the) (documented |declared |output )?schema|schema mismatch|"
            r"unexpected shape",
            _E.schema_mismatch,
        ),
        (r"empty (response|result|output)|no content|returned nothing", _E.empty_result),
        (
            r"\b4(00|09|13|15|22)\b|\binvalid\b|\bmissing\b|\brequired\b|must be|\bexpected\b|"
            r"not one of|bad request|unprocessable|unexpected (argument|keyword|parameter)",
            _E.validation_error,
        ),
    )
)

# Error codes and types seen in the wild (gRPC status names, OpenAI / Anthropic error types,
# common REST codes), matched case-insensitively after the taxonomy's own names.
_CODE_ALIASES: dict[str, ErrorClass] = {
    "deadline_exceeded": _E.timeout,
    "timeout_error": _E.timeout,
    "resource_exhausted": _E.rate_limited,
    "rate_limit_error": _E.rate_limited,
    "rate_limit_exceeded": _E.rate_limited,
    "too_many_requests": _E.rate_limited,
    "unavailable": _E.unavailable,
    "service_unavailable": _E.unavailable,
    "overloaded_error": _E.unavailable,
    "internal": _E.server_error,
    "internal_error": _E.server_error,
    "api_error": _E.server_error,
    "server_error": _E.server_error,
    "unauthenticated": _E.auth_expired,
    "authentication_error": _E.auth_expired,
    "invalid_api_key": _E.auth_expired,
    "token_expired": _E.auth_expired,
    "permission_denied": _E.policy_refusal,
    "permission_error": _E.policy_refusal,
    "forbidden": _E.policy_refusal,
    "content_filter": _E.policy_refusal,
    "not_found_error": _E.not_found,
    "invalid_argument": _E.validation_error,
    "invalid_request_error": _E.validation_error,
    "bad_request": _E.validation_error,
    "failed_precondition": _E.validation_error,
    "already_exists": _E.validation_error,
}


def classify_text(message: str, otherwise: ErrorClass = ErrorClass.unknown) -> ErrorClass:
    """The class an error message reads as; `otherwise` when nothing matches.

    This is the one text classifier: the engine (a domain tool that raised), the importers
    (a recorded tool reply that failed), the fault injector and the guard all use it. Only the
    fallback is the caller's: a tool that raised, or a recorded failed reply, certainly ran and
    refused the call, so those callers pass `validation_error`; text of unknown origin stays
    `unknown`, which is never retried.
    """
    low = message.lower()
    for pattern, cls in _TEXT_RULES:
        if pattern.search(low):
            return cls
    return otherwise


def _classify_code(code: Any) -> ErrorClass | None:
    if isinstance(code, bool):
        return None
    if isinstance(code, int):
        return classify_status(code)
    if isinstance(code, str):
        key = code.strip().lower().replace("-", "_").replace(" ", "_")
        if key.isdigit():
            return classify_status(int(key))
        if key in ErrorClass.__members__:
            return ErrorClass(key)
        return _CODE_ALIASES.get(key)
    return None


def _classify_error_value(error: Any, holder: Mapping[str, Any]) -> ErrorClass:
    fields: list[Any] = []
    if isinstance(error, Mapping):
        fields = [error.get(k) for k in ("error_class", "type", "code", "status", "status_code")]
    fields += [holder.get(k) for k in ("error_class", "status", "status_code", "code")]
    for value in fields:
        cls = _classify_code(value)
        if cls is not None:
            return cls
    if isinstance(error, Mapping):
        text = str(error.get("message") or error.get("detail") or error)
    else:
        text = str(error)
    return classify_text(text)


def classify_payload(value: Any) -> ErrorClass | None:
    """The class of a tool's return value when it is an error; None when it reads as success.

    Recognised: a mapping with a truthy `"error"` (a string, or a mapping whose `type`,
    `code` or `status` names the class), or with `"error_class"`; a string starting with
    `"Error:"`; and no output at all (None, or blank text) as `empty_result`. An empty list or
    mapping is a legitimate answer ("no orders") and is not an error.
    """
    if value is None:
        return _E.empty_result
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return _E.empty_result
        if text[:6].lower() == "error:":
            return classify_text(text[6:])
        if text[:1] == "{":
            try:
                parsed = json.loads(text)
            except ValueError:
                return None
            return classify_payload(parsed) if isinstance(parsed, dict) else None
        return None
    if isinstance(value, Mapping):
        if value.get("error"):
            return _classify_error_value(value["error"], value)
        if value.get("error_class"):
            return _classify_code(value["error_class"]) or _E.unknown
    return None


def _httpx() -> Any:
    # Only an already imported httpx can have raised an httpx exception, so this never pays
    # for importing it.
    return sys.modules.get("httpx")


def classify_exception(exc: BaseException) -> ErrorClass:
    """The class of an exception raised by (or while calling) a tool."""
    if isinstance(exc, ToolError):
        try:
            return ErrorClass(exc.error_class)
        except ValueError:
            return _E.unknown
    hx = _httpx()
    if hx is not None:
        if isinstance(exc, hx.HTTPStatusError):
            status_exc: httpx.HTTPStatusError = exc
            return classify_status(status_exc.response.status_code) or _E.unknown
        if isinstance(exc, hx.ConnectError | hx.ConnectTimeout | hx.PoolTimeout):
            return _E.unavailable  # never left the client: known not to have run
        if isinstance(exc, hx.TimeoutException):
            return _E.timeout
        if isinstance(exc, hx.TransportError):
            return _E.server_error  # dropped mid-request: the outcome is unknown
    if isinstance(exc, TimeoutError):
        return _E.timeout
    if isinstance(exc, ConnectionRefusedError):
        return _E.unavailable
    if isinstance(exc, ConnectionError):
        return _E.server_error
    if isinstance(exc, PermissionError):
        return _E.policy_refusal
    if isinstance(exc, FileNotFoundError | LookupError):
        return _E.not_found
    if isinstance(exc, json.JSONDecodeError | UnicodeDecodeError):
        return _E.malformed_output
    if isinstance(exc, ValueError | TypeError):
        return _E.validation_error
    status = getattr(exc, "status_code", None) or getattr(exc, "status", None)
    if isinstance(status, int):
        return classify_status(status) or _E.unknown
    return classify_text(str(exc)) if str(exc) else _E.unknown


def classify(source: BaseException | int | Any) -> ErrorClass | None:
    """Classify an exception, an HTTP status code, or a tool's output.

    An exception always gets a class; a status code below 400 and an output that does not
    read as an error give None.
    """
    if isinstance(source, BaseException):
        return classify_exception(source)
    if isinstance(source, int) and not isinstance(source, bool):
        return classify_status(source)
    return classify_payload(source)


_RETRY_AFTER_TEXT = re.compile(
    r"retry[ -]after[:\s]+(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|sec|seconds?)?", re.IGNORECASE
)


def parse_retry_after(value: str) -> float | None:
    """Seconds to wait from a `Retry-After` value: delay-seconds or an HTTP date.

    A date without a zone (`-0000`, or none at all) is read as UTC, as RFC 9110 says HTTP
    dates are; never as the local time. None when the value is neither; never negative.
    """
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    return max(0.0, (when - dt.datetime.now(dt.UTC)).total_seconds())


def retry_after_seconds(headers: Mapping[str, str] | None) -> float | None:
    """The wait response headers ask for: `retry-after-ms`, else `Retry-After`."""
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(float(ms) / 1000.0, 0.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    return parse_retry_after(value) if isinstance(value, str) and value else None


def _from_text(text: str) -> float | None:
    match = _RETRY_AFTER_TEXT.search(text)
    if match is None:
        return None
    value = float(match.group(1))
    unit = (match.group(2) or "s").lower()
    return value / 1000 if unit.startswith("m") else value


def retry_after_s(source: BaseException | Mapping[str, Any] | str | None) -> float | None:
    """The wait, in seconds, a failure asks for (Retry-After), if it names one.

    Looks at an exception's `retry_after` attribute, its HTTP response's `Retry-After`
    header (seconds or an HTTP date), a mapping's `retry_after`/`retry_after_s` or
    `Retry-After` key (also inside `"error"`), and "retry after N seconds" in text.
    """
    if source is None:
        return None
    if isinstance(source, BaseException):
        attr = getattr(source, "retry_after", None)
        if isinstance(attr, int | float) and not isinstance(attr, bool):
            return max(0.0, float(attr))
        response = getattr(source, "response", None)
        headers = getattr(response, "headers", None)
        if headers is not None and (parsed := retry_after_seconds(headers)) is not None:
            return parsed
        return _from_text(str(source))
    if isinstance(source, Mapping):
        for key in ("retry_after_s", "retry_after", "Retry-After", "retry-after"):
            value = source.get(key)
            if isinstance(value, int | float) and not isinstance(value, bool):
                return max(0.0, float(value))
            if isinstance(value, str) and (parsed := parse_retry_after(value)) is not None:
                return parsed
        inner = source.get("error")
        if isinstance(inner, Mapping):
            return retry_after_s(inner)
        return _from_text(str(inner)) if isinstance(inner, str) else None
    return _from_text(source)
