"""The documented `python:` agent that re-reads after each write
(docs/examples/verifying_agent.py): on the shop whose backend silently drops one cancellation,
it reads before and after each write, re-sends a write that did not take effect once, and tells
the user when it still did not; where writes work it does what the oracle does."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import sessionproof
from sessionproof.records import AssistantMessageEvent, Session, ToolCallEvent
from sessionproof.scoring._internal import session_faults

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
PROJECT = Path(__file__).parent / "verify_project" / "project.yaml"
AGENT = "python:verifying_agent:respond"
VERIFY = f"verify={PROJECT.parent / 'verify.yaml'}"

pytestmark = pytest.mark.slow  # the project's MCP domain starts a server per session


@pytest.fixture(scope="module")
def sessions() -> dict[str, Session]:
    sys.path.insert(0, str(EXAMPLES))
    try:
        done = sessionproof.run_suite(str(PROJECT), AGENT, arms=["baseline", VERIFY], store=None)
    finally:
        sys.path.remove(str(EXAMPLES))
    found = {s.scenario_id: s for s in done.sessions if s.arm == "baseline"}
    found |= {f"verify:{s.scenario_id}": s for s in done.sessions if s.arm == VERIFY}
    return found


def _calls(session: Session) -> list[tuple[str, str]]:
    return [
        (e.payload.id.split("-", 1)[0], e.payload.name) for e in session.events_of(ToolCallEvent)
    ]


def _reply(session: Session) -> str:
    texts = [e.payload.content for e in session.events_of(AssistantMessageEvent)]
    return next(t for t in reversed(texts) if t)


def test_a_write_that_took_effect_is_read_before_and_after_once(
    sessions: dict[str, Session],
) -> None:
    ok = sessions["shop-cancel-ok"]
    assert _calls(ok) == [
        ("pre", "get_order"),
        ("oracle", "get_order"),
        ("oracle", "cancel_order"),
        ("post", "get_order"),
    ]
    assert ok.verdict is True and "did not take effect" not in _reply(ok)


def test_a_write_that_did_not_take_effect_is_re_sent_once_then_reported(
    sessions: dict[str, Session],
) -> None:
    stuck = sessions["shop-cancel-stuck"]
    assert _calls(stuck) == [
        ("pre", "get_order"),
        ("oracle", "cancel_order"),
        ("post", "get_order"),
        ("again", "cancel_order"),
        ("post2", "get_order"),
    ]
    assert "cancel_order did not take effect" in _reply(stuck)
    assert session_faults(stuck) == []  # a backend bug, not an injected fault


def test_reads_need_no_writes(sessions: dict[str, Session]) -> None:
    assert _calls(sessions["shop-bad-total"]) == [("oracle", "get_order")]


def test_a_write_the_guard_reports_as_failed_is_told_to_the_user(
    sessions: dict[str, Session],
) -> None:
    stuck = sessions["verify:shop-cancel-stuck"]  # the verify guard answers with an error
    assert _calls(stuck) == [("pre", "get_order"), ("oracle", "cancel_order")]
    assert "cancel_order failed" in _reply(stuck)
    shipped = sessions["verify:shop-cancel-shipped"]  # its precondition kept it from being sent
    assert "cancel_order failed" in _reply(shipped)
