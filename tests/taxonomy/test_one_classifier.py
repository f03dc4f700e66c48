"""The engine, the importers and the taxonomy classify the same error text the same way.

Before `taxonomy` existed, each had its own rules: "429 Too Many Requests" raised by a domain
tool was `validation_error` in the engine, "no such order" in a recorded transcript was
`validation_error` in the importers, and "Unknown action" was `unknown` in the guard.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

from sessionproof.domains import Domain, ToolContext, Toolkit, tool
from sessionproof.importers import SessionBuilder
from sessionproof.records import ErrorClass, ToolCall
from sessionproof.taxonomy._internal import classify_payload, classify_text

E = ErrorClass

TABLE: list[tuple[str, ErrorClass]] = [
    ("429 Too Many Requests: rate limit exceeded", E.rate_limited),
    ("the access token has expired", E.auth_expired),
    ("request timed out after 30 seconds", E.timeout),
    ("503 Service Unavailable", E.unavailable),
    ("500 Internal Server Error", E.server_error),
    ("cancelling is not allowed by policy", E.policy_refusal),
    ("Order not found", E.not_found),
    ("no such order #W123", E.not_found),
    ("Unknown action cancel_everything", E.not_found),
    ("customer does not exist", E.not_found),
    ("response body is malformed", E.malformed_output),
    ("zip_code must be five digits", E.validation_error),
]


class _Nothing(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Raiser(Toolkit[_Nothing]):
    """One tool that raises a plain exception carrying the text under test."""

    text: str = ""

    @tool()
    def fail(self) -> str:
        """Always fails."""
        raise RuntimeError(self.text)


async def _engine_class(text: str) -> ErrorClass | None:
    db = _Nothing()
    tools = _Raiser(db)
    tools.text = text
    domain: Domain[Any] = Domain("raiser", db, tools, policy="")
    ctx = ToolContext(
        run_id="r",
        session_id="s",
        scenario_id="sc",
        trial=0,
        arm="base",
        turn=0,
        step=0,
        seed=0,
        emit=lambda kind, payload: None,
    )
    result = await domain.call_tool(ToolCall(id="c1", name="fail", arguments={}), ctx)
    return result.error_class


def _importer_class(text: str) -> ErrorClass | None:
    builder = SessionBuilder("r", "s")
    builder.user("hi")
    builder.assistant(None, [ToolCall(id="c1", name="fail", arguments={})])
    builder.tool_result("c1", f"Error: {text}", failed=True)
    return builder.session("sc", 0, "agent_stop").tool_results()[0].error_class


@pytest.mark.parametrize(("text", "expected"), TABLE)
async def test_the_three_call_sites_agree(text: str, expected: ErrorClass) -> None:
    assert classify_text(text) is expected
    assert classify_payload(f"Error: {text}") is expected  # the guard's and faults' path
    assert await _engine_class(text) is expected
    assert _importer_class(text) is expected


async def test_unrecognised_text_falls_back_by_caller() -> None:
    # A tool that raised, or a recorded failed reply, certainly ran and refused the call.
    assert await _engine_class("boom") is E.validation_error
    assert _importer_class("boom") is E.validation_error
    # Text of unknown origin is `unknown`: never retried.
    assert classify_text("boom") is E.unknown
    assert classify_payload("Error: boom") is E.unknown
