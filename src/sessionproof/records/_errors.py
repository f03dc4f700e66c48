"""The error taxonomy's vocabulary: the class names every layer uses for a failure."""

from __future__ import annotations

from enum import StrEnum


class ErrorClass(StrEnum):
    """What kind of failure a tool call (or a model reply) met.

    The semantics of each class (retry, inform, escalate, replay safety) live in
    `sessionproof.faults`; here is only the shared name.
    """

    timeout = "timeout"
    rate_limited = "rate_limited"
    server_error = "server_error"
    unavailable = "unavailable"
    auth_expired = "auth_expired"
    not_found = "not_found"
    validation_error = "validation_error"
    malformed_output = "malformed_output"
    truncated_output = "truncated_output"
    empty_result = "empty_result"
    schema_mismatch = "schema_mismatch"
    policy_refusal = "policy_refusal"
    unknown = "unknown"


class TerminationReason(StrEnum):
    """Why a session ended.

    `infra_error` is never an agent failure: the model provider or the harness could not
    go on. It is reported apart and excluded from accuracy (see `Outcome.counts`).
    """

    user_stop = "user_stop"
    agent_stop = "agent_stop"
    transfer = "transfer"
    max_steps = "max_steps"
    too_many_errors = "too_many_errors"
    infra_error = "infra_error"
