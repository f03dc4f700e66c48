"""The taxonomy's semantics and the classifier, as tables."""

from __future__ import annotations

import datetime as dt
import email.utils
import json
from typing import Any

import httpx
import pytest

from sessionproof.errors import ToolError, UnknownToolError
from sessionproof.records import ErrorClass
from sessionproof.taxonomy import TAXONOMY, ErrorAction, classify_exception, semantics
from sessionproof.taxonomy._internal import (
    classify,
    classify_payload,
    classify_status,
    classify_text,
    fault_message,
    may_replay,
    retry_after_s,
)

E = ErrorClass


def test_every_class_has_consistent_semantics() -> None:
    assert set(TAXONOMY) == set(ErrorClass)
    for cls, sem in TAXONOMY.items():
        assert sem.error_class is cls
        # Only retry-action classes are worth re-sending, and every one of them is.
        assert sem.retryable == (sem.action is ErrorAction.retry), cls
    escalate = {c for c, s in TAXONOMY.items() if s.action is ErrorAction.escalate}
    assert escalate == {E.auth_expired, E.policy_refusal}
    assert TAXONOMY[E.rate_limited].default_retry_after_s is not None
    # Failures refused before anything ran are the only ones a write may be re-sent after.
    known_not_run = {c for c, s in TAXONOMY.items() if not s.outcome_unknown}
    assert {E.rate_limited, E.unavailable, E.auth_expired} <= known_not_run
    assert E.timeout not in known_not_run and E.server_error not in known_not_run


def test_unknown_class_name_reads_as_unknown() -> None:
    assert semantics("no_such_class").error_class is E.unknown
    assert not semantics("no_such_class").retryable


@pytest.mark.parametrize(
    ("cls", "write", "idempotent", "key", "expected"),
    [
        (E.timeout, False, False, False, True),  # reads are always safe to replay
        (E.timeout, True, False, False, False),  # the write may have landed
        (E.server_error, True, False, False, False),
        (E.timeout, True, False, True, True),  # the service de-duplicates by key
        (E.timeout, True, True, False, True),
        (E.rate_limited, True, False, False, True),  # refused before running
        (E.unavailable, True, False, False, True),
        (E.malformed_output, True, False, False, False),
    ],
)
def test_may_replay(
    cls: ErrorClass, write: bool, idempotent: bool, key: bool, expected: bool
) -> None:
    assert may_replay(cls, write=write, idempotent=idempotent, has_idempotency_key=key) is expected


@pytest.mark.parametrize("tool", ["book_reservation", "get_order", "find_missing_items", "x"])
@pytest.mark.parametrize("cls", list(ErrorClass))
def test_injected_messages_classify_back_to_their_class(cls: ErrorClass, tool: str) -> None:
    message = fault_message(cls, tool)
    assert tool in message
    assert classify_payload(f"Error: {message}") is cls


def test_rate_limit_message_names_the_wait() -> None:
    assert "Retry after 7 seconds" in fault_message(E.rate_limited, "t", 7.0)
    assert retry_after_s(fault_message(E.rate_limited, "t", 7.0)) == 7.0


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        (200, None),
        (302, None),
        (400, E.validation_error),
        (401, E.auth_expired),
        (403, E.policy_refusal),
        (404, E.not_found),
        (408, E.timeout),
        (409, E.validation_error),
        (410, E.not_found),
        (422, E.validation_error),
        (429, E.rate_limited),
        (500, E.server_error),
        (502, E.server_error),
        (503, E.unavailable),
        (504, E.timeout),
        (529, E.unavailable),
        (599, E.server_error),
        (700, E.unknown),  # broken input: not an HTTP status
    ],
)
def test_classify_status(status: int, expected: ErrorClass | None) -> None:
    assert classify_status(status) is expected
    assert classify(status) is expected


def _status_error(status: int) -> httpx.HTTPStatusError:
    request = httpx.Request("GET", "https://api.example/x")
    return httpx.HTTPStatusError(
        "boom", request=request, response=httpx.Response(status, request=request)
    )


@pytest.mark.parametrize(
    ("exc", "expected"),
    [
        (TimeoutError(), E.timeout),
        (ConnectionRefusedError(), E.unavailable),
        (ConnectionResetError(), E.server_error),  # dropped mid-request: outcome unknown
        (ToolError("gone", "not_found"), E.not_found),
        (ToolError("odd", "no_such_class"), E.unknown),
        (UnknownToolError("x", ["a"]), E.validation_error),
        (PermissionError("no"), E.policy_refusal),
        (KeyError("1042"), E.not_found),
        (json.JSONDecodeError("bad", "{", 0), E.malformed_output),
        (ValueError("amount must be positive"), E.validation_error),
        (RuntimeError("503 Service Unavailable"), E.unavailable),
        (RuntimeError("boom"), E.unknown),
        (RuntimeError(), E.unknown),
        (httpx.ConnectError("refused"), E.unavailable),
        (httpx.ReadTimeout("slow"), E.timeout),
        (httpx.RemoteProtocolError("eof"), E.server_error),
        (_status_error(429), E.rate_limited),
        (_status_error(401), E.auth_expired),
    ],
)
def test_classify_exception(exc: BaseException, expected: ErrorClass) -> None:
    assert classify_exception(exc) is expected
    assert classify(exc) is expected


class _StatusCarrier(Exception):
    status_code = 503


def test_exception_with_a_status_code_attribute() -> None:
    assert classify_exception(_StatusCarrier("x")) is E.unavailable


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        ({"error": {"type": "rate_limit_error", "message": "slow down"}}, E.rate_limited),
        ({"error": {"code": 404}}, E.not_found),
        ({"error": {"code": "DEADLINE_EXCEEDED"}}, E.timeout),
        ({"error": {"type": "overloaded_error"}}, E.unavailable),
        ({"error": {"code": "weird", "message": "Token has expired"}}, E.auth_expired),
        ({"error": "Internal server error"}, E.server_error),
        ({"status": 503, "error": "try later"}, E.unavailable),
        ({"error_class": "policy_refusal"}, E.policy_refusal),
        ({"error": {"error_class": "schema_mismatch"}}, E.schema_mismatch),
        ('{"error": {"code": 429}}', E.rate_limited),
        ("Error: order '9' not found", E.not_found),
        ("error: invalid arguments for cancel_order: reason: missing", E.validation_error),
        ("Error: something odd happened", E.unknown),
        ("", E.empty_result),
        ("   \n", E.empty_result),
        (None, E.empty_result),
        (b"", E.empty_result),
        ([], None),  # an empty answer ("no orders") is an answer
        ({}, None),
        ({"order_id": "1042", "error": None}, None),
        ("The order shipped yesterday.", None),
        ('{"order_id": "1042"}', None),
        ("{not json", None),  # broken input: text that only looks like JSON
        (True, None),
        (42, None),
    ],
)
def test_classify_payload(payload: Any, expected: ErrorClass | None) -> None:
    assert classify_payload(payload) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("429 Too Many Requests", E.rate_limited),
        ("quota exceeded for project", E.rate_limited),
        ("401 Unauthorized: invalid token", E.auth_expired),
        ("the session has expired", E.auth_expired),
        ("request timed out", E.timeout),
        ("deadline exceeded", E.timeout),
        ("connection refused", E.unavailable),
        ("502 Bad Gateway", E.server_error),
        ("not allowed by policy", E.policy_refusal),
        ("customer does not exist", E.not_found),
        ("output truncated at 200000 characters", E.truncated_output),
        ("response body is malformed", E.malformed_output),
        ("zip_code must be five digits", E.validation_error),
        ("find_missing_items_timeout_probe", E.unknown),  # words inside names do not count
        ("", E.unknown),
    ],
)
def test_classify_text(text: str, expected: ErrorClass) -> None:
    assert classify_text(text) is expected


class _WithRetryAfter(Exception):
    retry_after = 4


def test_retry_after_sources() -> None:
    assert retry_after_s(_WithRetryAfter()) == 4.0
    request = httpx.Request("GET", "https://api.example/x")
    response = httpx.Response(429, request=request, headers={"Retry-After": "12"})
    exc = httpx.HTTPStatusError("slow", request=request, response=response)
    assert retry_after_s(exc) == 12.0
    soon = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=120)
    dated = httpx.Response(
        503, request=request, headers={"Retry-After": email.utils.format_datetime(soon)}
    )
    waited = retry_after_s(httpx.HTTPStatusError("x", request=request, response=dated))
    assert waited is not None and 100 < waited <= 120
    assert retry_after_s({"error": {"retry_after": 3}}) == 3.0
    assert retry_after_s({"Retry-After": "5"}) == 5.0
    assert retry_after_s("Rate limited. Retry-After: 250ms") == 0.25
    assert retry_after_s("please retry after 2 seconds") == 2.0
    assert retry_after_s(RuntimeError("no hint here")) is None
    assert retry_after_s(None) is None


def test_retry_after_broken_inputs() -> None:
    assert retry_after_s({"Retry-After": "soon-ish"}) is None  # neither seconds nor a date
    assert retry_after_s({"retry_after": True}) is None  # a bool is not a number of seconds
    assert retry_after_s({"Retry-After": "-5"}) == 0.0  # never a negative wait
    assert retry_after_s({"error": "retry after x seconds"}) is None
