"""Each built-in motif on hand-built sessions: present where its rule holds, absent where not."""

from __future__ import annotations

import pytest

from sessionproof.patterns._motif_view import id_values, mentions, tool_role, view_of
from sessionproof.patterns._motifs import BUILTIN_MOTIFS, MOTIFS, MotifContext, motifs
from sessionproof.records import ErrorClass, Session, ToolCall, ToolCallEvent

from .motif_sessions import agent, call, implicit, session, user

CTX = MotifContext()
ORDER = '{"order_id": "#W1234", "status": "pending", "total": 120.0}'


def _present(name: str, *turns: object, context: MotifContext = CTX) -> bool | None:
    return MOTIFS.require(name).present(view_of(session(*turns)), context)  # type: ignore[arg-type]


def test_every_builtin_is_registered_with_why_and_advice() -> None:
    found = {m.name: m for m in motifs()}
    assert set(BUILTIN_MOTIFS) <= set(found)
    for name in BUILTIN_MOTIFS:
        m = found[name]
        assert m.why and m.advice and m.investment, name


def test_roles_values_and_mentions() -> None:
    assert tool_role("get_order_details") == "read"
    assert tool_role("searchFlights") == "read"
    assert tool_role("cancel_pending_order") == "write"
    assert tool_role("transfer_to_human_agents") == "handover"
    assert tool_role("get_order", frozenset({"get_order"})) == "write"
    assert id_values({"order_id": "#W1234", "reason": "no longer needed", "n": 1}) == ["#W1234"]
    assert id_values({"amount": 120.0, "items": ["X12345"], "flag": True}) == ["120", "X12345"]
    assert mentions('{"total": 120.00}', "120") and not mentions("1200", "120")


def test_write_without_prior_read() -> None:
    name = "write_without_prior_read"
    assert _present(name, user("cancel #W1234"), call("cancel_order", {"order_id": "#W1234"}))
    assert not _present(
        name,
        user("cancel #W1234"),
        call("get_order", {"order_id": "#W1234"}, ORDER),
        call("cancel_order", {"order_id": "#W1234"}),
    )
    # Read through an output: the id came back from a read of the user.
    assert not _present(
        name,
        call("get_user", {"user_id": "ann_1"}, '{"orders": ["#W1234"]}'),
        call("cancel_order", {"order_id": "#W1234"}),
    )
    assert _present(
        name, call("get_order", {"order_id": "#W9"}), call("cancel_order", {"order_id": "#W1234"})
    )
    # A write that names no entity cannot be told.
    assert _present(name, call("cancel_order", {"reason": "changed my mind"})) is None
    assert _present(name, call("get_order", {"order_id": "#W1"})) is False


def test_write_without_confirmation() -> None:
    name = "write_without_confirmation"
    w = call("cancel_order", {"order_id": "#W1234"})
    assert _present(name, user("cancel #W1234"), w)
    assert _present(name, user("cancel"), agent("Cancel #W1234, ok?"), user("hmm, why?"), w)
    assert not _present(name, user("cancel"), agent("Cancel #W1234?"), user("Yes, go ahead."), w)
    # A yes before the agent's last proposal does not confirm what it proposed later.
    assert _present(name, agent("Cancel?"), user("yes"), agent("Also refund to the card?"), w)


def test_ungrounded_argument() -> None:
    name = "ungrounded_argument"
    assert _present(name, user("my order please"), call("get_order", {"order_id": "#W7777"}))
    assert not _present(name, user("order #W7777"), call("get_order", {"order_id": "#W7777"}))
    assert not _present(
        name,
        user("refund it"),
        call("get_order", {"order_id": "me"}, ORDER.replace("#W1234", "#W5")),
        call("refund", {"order_id": "#W5", "amount": 120}),
    )
    # A changed amount: 150 appears nowhere.
    assert _present(name, call("get_order", {}, ORDER), call("refund", {"amount": 150}))


def test_retry_unchanged_after_error() -> None:
    name = "retry_unchanged_after_error"
    bad = call("cancel_order", {"order_id": "#W1"}, "Error: locked", ErrorClass.not_found)
    assert _present(name, bad, call("cancel_order", {"order_id": "#W1"}))
    assert not _present(name, bad, call("cancel_order", {"order_id": "#W2"}))
    assert not _present(
        name, call("cancel_order", {"order_id": "#W1"}), call("cancel_order", {"order_id": "#W1"})
    )


def test_proceed_after_error_unacknowledged() -> None:
    name = "proceed_after_error_unacknowledged"
    bad = call("get_order", {"order_id": "#W1"}, "Error: not found", ErrorClass.not_found)
    assert _present(name, bad, agent("Your order is on its way."))
    assert _present(name, bad, call("cancel_order", {"order_id": "#W1"}))
    assert not _present(name, bad, agent("Sorry, I could not find that order."))
    assert not _present(name, call("get_order", {"order_id": "#W1"}), agent("Here it is."))


def test_transfer_or_stop_after_error() -> None:
    name = "transfer_or_stop_after_error"
    bad = call("get_order", {"order_id": "#W1"}, "Error", ErrorClass.not_found)
    assert _present(name, bad, call("transfer_to_human_agents", {"summary": "x"}))
    assert _present(name, bad, agent("I cannot help, sorry."))
    assert not _present(name, bad, call("get_order", {"order_id": "#W2"}))


def test_read_loop() -> None:
    name = "read_loop"
    reads = [call("search_flights", {"date": f"2024-05-{d:02d}"}) for d in range(1, 6)]
    assert _present(name, *reads)
    assert not _present(name, *reads[:4])
    assert not _present(name, *reads[:3], user("the 4th?"), *reads[3:])
    assert _present(name, *reads[:3], agent("checking more dates"), *reads[3:])
    assert not _present(name, *reads, context=MotifContext(read_loop=6))


def test_acting_on_implicit_fault() -> None:
    name = "acting_on_implicit_fault"
    served = call("get_user", {"user_id": "ann"}, '{"orders": ["#W9999"]}')
    assert _present(name, served, implicit(), call("cancel_order", {"order_id": "#W9999"}))
    assert not _present(name, served, call("cancel_order", {"order_id": "#W9999"}))
    assert not _present(name, served, implicit(), call("cancel_order", {"order_id": "#W1"}))
    views = [view_of(session(served))]
    why = MOTIFS.require(name).not_applicable(views, CTX)
    assert why is not None and "no implicit fault" in why


def test_policy_read_skipped() -> None:
    name = "policy_read_skipped"
    ctx = MotifContext(policy_reads={"cancel_order": ("get_order",)})
    w = call("cancel_order", {"order_id": "#W1"})
    assert _present(name, w, context=ctx)
    assert not _present(name, call("get_order", {"order_id": "#W1"}), w, context=ctx)
    assert _present(name, call("get_order", {}), context=ctx) is None
    why = MOTIFS.require(name).not_applicable([view_of(session(w))], CTX)
    assert why is not None and "no policy read" in why


@pytest.mark.parametrize("name", BUILTIN_MOTIFS)
def test_a_session_without_tool_calls_crashes_no_motif(name: str) -> None:
    empty = view_of(session(user("hi"), agent("hello")))
    assert MOTIFS.require(name).present(empty, CTX) in (False, None)


@pytest.mark.parametrize("name", BUILTIN_MOTIFS)
def test_broken_calls_crash_no_motif(name: str) -> None:
    # Arguments that did not parse, and a call whose result never came.
    s = session(user("cancel #W1"), call("cancel_order", {"order_id": "#W1"}))
    broken = ToolCall(id="x", name="cancel_order", arguments=None, raw_arguments="{oops")
    events = [*s.events, ToolCallEvent(**_meta(s, len(s.events)), payload=broken)]
    view = view_of(s.model_copy(update={"events": events}))
    assert view.turns[-1].call is not None and view.turns[-1].call.output is None
    ctx = MotifContext(policy_reads={"cancel_order": ("get_order",)})
    assert MOTIFS.require(name).present(view, ctx) in (True, False, None)


def _meta(s: Session, seq: int) -> dict[str, object]:
    return dict(
        run_id="r", session_id=s.session_id, seq=seq, turn=0, step=seq, t_wall=0.0, t_mono=0.0
    )
