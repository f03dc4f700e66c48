"""The task signature: its buckets, the intent hash, and the coarsening of strata."""

from __future__ import annotations

from sessionproof.patterns._motif_view import view_of
from sessionproof.patterns._signature import Signature, intent_bucket, signature, strata

from .motif_sessions import call, session, user


def test_buckets_of_one_session() -> None:
    s = session(
        user("Please cancel my pending order"),
        call("get_order", {"order_id": "#W1"}),
        call("cancel_order", {"order_id": "#W1"}),
        call("cancel_order", {"order_id": "#W2"}),
    )
    sig = signature(view_of(s))
    assert (sig.writes, sig.tools, sig.length) == (2, 1, 0)  # 2 writes, 2 tools, 3 calls
    assert sig.intent == intent_bucket("Please cancel my pending order")
    assert signature(view_of(s), write_tools=frozenset()).writes == 0


def test_intent_hash_is_stable_and_ignores_stopwords_and_case() -> None:
    a = intent_bucket("Cancel the PENDING order please")
    assert a == intent_bucket("please cancel pending order, thanks")
    assert intent_bucket("") == 0 and intent_bucket("hi ok") == 0
    assert {intent_bucket(w) for w in ("refund", "exchange", "baggage", "upgrade", "address")} != {
        a
    }


def test_strata_coarsen_until_half_the_sessions_have_both_outcomes() -> None:
    sigs = [
        Signature(writes=w, tools=t, length=0, intent=i)
        for w, t, i in [(0, 0, 0), (0, 0, 1), (1, 1, 0), (1, 2, 1), (2, 1, 2), (2, 2, 0)]
    ]
    failed = [True, False, True, False, True, False]
    made = strata(sigs, failed)
    assert made is not None
    keys, kept = made
    # Every full signature is unique; writes alone pairs each failure with a pass.
    assert kept == ("writes",)
    assert keys == ["writes=0", "writes=0", "writes=1", "writes=1", "writes=2", "writes=2"]
    assert strata(sigs, [True] * 6) is None


def test_fine_strata_are_kept_when_they_already_cover_half() -> None:
    sigs = [Signature(1, 1, 1, 1)] * 4
    made = strata(sigs, [True, False, True, False])
    assert made is not None and made[1] == ("writes", "tools", "length", "intent")
