"""`NoiseFloor` of one arm: its numbers from per-scenario counts, and what it says when a
number is not estimable (never a made-up one)."""

from __future__ import annotations

import pytest

from sessionproof.errors import StatisticsInputError
from sessionproof.records import Outcome, Session, TerminationReason
from sessionproof.scoring._internal import noise_of_sessions
from sessionproof.scoring._noise_floor import noise_floor
from sessionproof.scoring.stats._noise import icc_anova, min_detectable_difference, trials_needed

COUNTS = {f"s{i}": (4, c) for i, c in enumerate([0, 1, 2, 3, 4, 4, 0, 2, 3, 1])}


def test_numbers_from_counts() -> None:
    floor = noise_floor(COUNTS, not_judged=3, target_mde=0.45)
    assert floor.scenarios == 10 and floor.judged_trials == 40 and floor.not_judged == 3
    assert floor.trials_per_scenario == 4.0
    assert floor.accuracy == pytest.approx(20 / 40)
    icc = icc_anova(COUNTS)
    assert icc is not None and floor.icc == pytest.approx(icc)
    assert floor.design_effect == pytest.approx(1 + 3 * icc)
    assert floor.mde == pytest.approx(min_detectable_difference(10, 4, 0.5, icc))
    assert floor.trials_needed == trials_needed(0.45, 10, 0.5, icc)
    assert floor.icc_ci95 is not None and floor.icc_ci95[0] <= icc <= floor.icc_ci95[1]
    assert floor.notes == []
    # Counts 1, 2, 3, 3, 2, 1 of 4 give both verdicts; 0, 4, 4, 0 do not.
    assert floor.flip_scenarios == 10 and floor.flipped_scenarios == 6


def test_unreachable_target_is_said_not_numbered() -> None:
    floor = noise_floor(COUNTS, target_mde=0.05)
    assert floor.trials_needed is None and floor.mde_floor is not None
    assert floor.notes == [
        f"a difference of 0.05 is not reachable with 10 scenarios: with any number of trials "
        f"the detectable difference stays above {floor.mde_floor:.3f}"
    ]


def test_nothing_judged() -> None:
    floor = noise_floor({"a": (0, 0)}, not_judged=4)
    assert (floor.scenarios, floor.not_judged, floor.accuracy, floor.mde) == (0, 4, None, None)
    assert floor.notes == ["no session was judged: nothing is estimable"]


def test_one_trial_each() -> None:
    floor = noise_floor({"a": (1, 1), "b": (1, 0), "c": (1, 1)})
    assert floor.flip_rate is None and floor.icc is None and floor.trials_needed is None
    assert floor.mde == pytest.approx(min_detectable_difference(3, 1, 2 / 3, 0.0))
    assert floor.notes[0].startswith("one judged trial per scenario")
    assert "trials needed: not estimable without the ICC" in floor.notes[-1]


def test_no_variance() -> None:
    floor = noise_floor({"a": (3, 3), "b": (3, 3)})
    assert floor.flip_rate == 0.0 and floor.icc is None and floor.mde is None
    assert any("same verdict" in n for n in floor.notes)


def test_unequal_trials_are_said() -> None:
    floor = noise_floor({"a": (3, 1), "b": (2, 2), "c": (1, 0)})
    assert floor.trials_per_scenario == 2.0
    floor = noise_floor({"a": (3, 1), "b": (2, 2)})
    assert any("k is their mean, 2.50" in n for n in floor.notes)


@pytest.mark.parametrize("target", [0.0, 2.0])
def test_bad_target(target: float) -> None:
    with pytest.raises(StatisticsInputError, match="--target-mde"):
        noise_floor(COUNTS, target_mde=target)


def _session(sid: str, trial: int, success: bool | None) -> Session:
    infra = success is None
    return Session(
        session_id=f"{sid}.t{trial}",
        run_id="r",
        scenario_id=sid,
        trial=trial,
        termination=TerminationReason.infra_error if infra else TerminationReason.agent_stop,
        outcome=None if infra else Outcome(success=success, reward=float(bool(success))),
    )


def test_from_sessions_unjudged_left_out_and_counted() -> None:
    sessions = [
        _session("a", 0, True),
        _session("a", 1, None),
        _session("a", 2, False),
        _session("b", 0, False),
        _session("b", 1, False),
        _session("c", 0, None),
    ]
    floor = noise_of_sessions(sessions)
    assert floor.not_judged == 2 and floor.judged_trials == 4 and floor.scenarios == 2
    assert floor.flip_rate == pytest.approx((1.0 + 0.0) / 2)
