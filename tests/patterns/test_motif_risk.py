"""Motif features in the early-warning model: their AUC beside the token model and the
step-count baseline, and a plain sentence where they do not beat the baseline."""

from __future__ import annotations

import random

from sessionproof.patterns import mine
from sessionproof.patterns._motif_view import view_of
from sessionproof.records import Session

from .motif_sessions import agent, call, session, user


def _session(k: int, blind: bool, failed: bool) -> Session:
    # Every session reads the same and is as long: only the confirmation differs.
    confirm = [] if blind else [agent("Cancel #W01?"), user("yes")]
    reads = [call("get_order", {"order_id": "#W01"}) for _ in range(3)]
    if blind:
        confirm = [agent("Cancelling #W01 now."), user("fine, and then?")]
    tail = [agent("Done."), user("thanks"), agent("Anything else?"), user("no")] * 2
    return session(
        user("cancel #W01"),
        *reads,
        *confirm,
        call("cancel_order", {"order_id": "#W01"}),
        *tail,
        verdict=not failed,
        scenario=f"t{k}",
    )


def test_the_model_with_motifs_is_reported_beside_the_baseline() -> None:
    rng = random.Random(4)
    sessions = []
    for k in range(60):
        blind = k % 2 == 0
        sessions.append(_session(k, blind, failed=rng.random() < (0.85 if blind else 0.15)))
    report = mine(sessions)
    risk = report.risk
    assert "write_without_confirmation" in risk.motif_features
    assert set(risk.motif_auc_by_prefix) == set(risk.cv_auc_by_prefix)
    # Once the write is in the prefix, the motif separates the outcomes the step count cannot.
    last = max(risk.motif_auc_by_prefix, key=int)
    assert (risk.motif_auc_by_prefix[last] or 0) > 0.7
    assert (risk.baseline_auc_by_prefix[last] or 1) < 0.6
    assert risk.motifs_beat_baseline is False  # before the write nothing differs
    assert "the model with motifs does not beat the step-count baseline at prefix" in risk.note


def test_a_prefix_holds_only_the_turns_of_its_steps() -> None:
    v = view_of(_session(0, blind=True, failed=True))
    assert v.prefix(0).turns == v.turns[:1]
    assert not [t for t in v.prefix(3).turns if t.call and t.call.name == "cancel_order"]
    assert v.prefix(10_000) == v
