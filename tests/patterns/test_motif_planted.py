"""A planted motif inside confounded tasks: the adjusted analysis finds the cause alone; the
unadjusted one also 'finds' the motifs that only ride with hard tasks."""

from __future__ import annotations

from sessionproof.patterns._motif_analysis import analyse
from sessionproof.patterns._motif_synthetic import CAUSE, CONFOUNDED, confounded_sessions
from sessionproof.patterns._motif_view import view_of


def _found(seed: int, unadjusted: bool, null: bool = False) -> tuple[str, set[str]]:
    data = confounded_sessions(600, seed, null=null)
    a = analyse(
        [view_of(s) for s in data],
        [s.scenario_id for s in data],
        [s.verdict is False for s in data],
        unadjusted=unadjusted,
    )
    found = {
        m.name
        for m in a.motifs
        if m.q_value is not None and m.q_value < 0.05 and (m.odds_ratio or 0) > 1
    }
    return a.control, found


def test_adjusting_by_task_signature_keeps_the_cause_and_drops_the_confounded() -> None:
    control, found = _found(1, unadjusted=False)
    assert control == "task-signature" and found == {CAUSE}
    control, pooled = _found(1, unadjusted=True)
    assert control == "none" and pooled >= {CAUSE, *CONFOUNDED[:1]}


def test_null_data_adjusted_finds_nothing() -> None:
    assert _found(2, unadjusted=False, null=True)[1] == set()
    assert _found(2, unadjusted=True, null=True)[1] != set()  # pooled: the confounder shows
