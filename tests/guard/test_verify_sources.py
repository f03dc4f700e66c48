"""The verification policies in a run (`verify=PATH`), on a typed toolkit and on a real MCP
server (a black box): the same shop, with the same backend bugs, under the oracle. Each policy
acts on both, and each changes what the baseline lets through."""

from __future__ import annotations

from pathlib import Path

import pytest

import sessionproof
from sessionproof.records import Session, ToolResultEvent
from sessionproof.records._internal import GuardDecisionEvent

pytestmark = pytest.mark.slow  # an MCP server per session: seconds

PROJECT = Path(__file__).parent / "verify_project"
VERIFY = f"verify={PROJECT / 'verify.yaml'}"


@pytest.fixture(scope="module")
def sessions() -> dict[tuple[str, str], Session]:
    done = sessionproof.run_suite(
        str(PROJECT / "project.yaml"), "oracle", arms=["baseline", VERIFY], store=None
    )
    return {(s.arm, s.scenario_id): s for s in done.sessions}


def _decisions(session: Session) -> list[str]:
    return [e.payload.decision.value for e in session.events_of(GuardDecisionEvent)]


def _results(session: Session) -> list[tuple[str, str | None, str]]:
    return [
        (e.payload.name, None if e.payload.ok else e.payload.error_class.value, e.payload.output)
        for e in session.events_of(ToolResultEvent)
    ]


def _state(session: Session) -> bool | None:
    """Whether the scenario's `state` criterion passed."""
    assert session.outcome is not None
    return next(c.passed for c in session.outcome.criteria if c.name == "state")


DOMAINS = ["shop", "shop-mcp"]


@pytest.mark.parametrize("domain", DOMAINS)
def test_a_confirmed_write_passes_untouched(
    sessions: dict[tuple[str, str], Session], domain: str
) -> None:
    verified = sessions[(VERIFY, f"{domain}-cancel-ok")]
    assert _decisions(verified) == []
    assert [r[:2] for r in _results(verified)] == [("get_order", None), ("cancel_order", None)]
    assert verified.verdict is True


@pytest.mark.parametrize("domain", DOMAINS)
def test_read_back_tells_the_agent_a_write_did_not_take_effect(
    sessions: dict[tuple[str, str], Session], domain: str
) -> None:
    base = sessions[("baseline", f"{domain}-cancel-stuck")]
    assert _results(base) == [("cancel_order", None, '{"result": "ok"}')]  # the bug hides
    verified = sessions[(VERIFY, f"{domain}-cancel-stuck")]
    assert _decisions(verified) == ["verify_failed"]
    ((tool, error_class, text),) = _results(verified)
    assert (tool, error_class) == ("cancel_order", "server_error")
    assert "did not take effect" in text and "it was not re-sent" in text


@pytest.mark.parametrize("domain", DOMAINS)
def test_a_failed_precondition_keeps_the_write_from_being_sent(
    sessions: dict[tuple[str, str], Session], domain: str
) -> None:
    base = sessions[("baseline", f"{domain}-cancel-shipped")]
    verified = sessions[(VERIFY, f"{domain}-cancel-shipped")]
    assert _decisions(base) == [] and _results(base)[0][1] is None
    assert _decisions(verified) == ["precondition_failed"]
    ((_, error_class, text),) = _results(verified)
    assert error_class == "validation_error" and "was not sent" in text
    if domain == "shop":  # the toolkit's state is readable: the shipped order stayed shipped
        assert (_state(base), _state(verified)) == (False, True)


@pytest.mark.parametrize("domain", DOMAINS)
def test_an_answer_breaking_an_invariant_is_not_handed_on(
    sessions: dict[tuple[str, str], Session], domain: str
) -> None:
    base = sessions[("baseline", f"{domain}-bad-total")]
    verified = sessions[(VERIFY, f"{domain}-bad-total")]
    assert '"total": 99.0' in _results(base)[0][2].replace('"total":99.0', '"total": 99.0')
    assert _decisions(verified) == ["output_invalid"]
    ((_, error_class, text),) = _results(verified)
    assert error_class == "malformed_output" and "breaks the check" in text
    assert "99" not in text  # the inconsistent answer itself is not handed on


@pytest.mark.parametrize("domain", DOMAINS)
def test_the_same_idempotency_key_is_applied_once(
    sessions: dict[tuple[str, str], Session], domain: str
) -> None:
    base = sessions[("baseline", f"{domain}-refund-twice")]
    verified = sessions[(VERIFY, f"{domain}-refund-twice")]
    assert [r[2] for r in _results(base)] == ['{"refunded": 5.0}', '{"refunded": 10.0}']
    assert _decisions(verified) == ["duplicate_blocked"]
    first, second = _results(verified)
    assert first[2] == '{"refunded": 5.0}'
    assert second[1] is None and second[2].startswith("Already applied")
    assert '{"refunded": 5.0}' in second[2]
    if domain == "shop":
        assert (_state(base), _state(verified)) == (False, True)
