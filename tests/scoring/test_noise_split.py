"""The variance split's estimator (`stats._split`, `scoring._noise_split`): by hand, and on
synthetic designs whose parties' shares are known."""

from __future__ import annotations

import numpy as np
import pytest

from sessionproof.errors import StatisticsInputError
from sessionproof.scoring._internal import ALL_SEEDS, counts_by_arm, variance_split
from sessionproof.scoring.stats._split import variance_shares, within_variance


def test_within_variance_by_hand() -> None:
    # (4, 2): 2·2 / (4·3) = 1/3; (3, 3): 0; (1, 0) has one trial and is left out.
    assert within_variance({"a": (4, 2), "b": (3, 3), "c": (1, 0)}) == (pytest.approx(1 / 6), 2)
    assert within_variance({"a": (1, 1)}) == (None, 0)


def test_shares_by_hand() -> None:
    agent = {"a": (4, 2), "b": (4, 0)}  # T = (1/3 + 0) / 2 = 1/6
    user = {"a": (4, 4), "b": (4, 1)}  # T = (0 + 1·3/12) / 2 = 1/8
    shares, intervals, common = variance_shares({"agent": agent, "user": user})
    assert common == ["a", "b"]
    assert shares["agent"] == pytest.approx((1 / 6) / (1 / 6 + 1 / 8))
    assert shares["user"] == pytest.approx((1 / 8) / (1 / 6 + 1 / 8))
    # Two scenarios: a quarter of the resamples draw "a" twice (no user variance) and a
    # quarter "b" twice (no agent variance): every resample still has some variance.
    assert intervals is not None and intervals["agent"] == (0.0, 1.0)


def _design(
    rng: np.random.Generator, deciders: list[str], trials: int, vary: str
) -> dict[str, tuple[int, int]]:
    """A run of `vary`: each scenario's verdict is a Bernoulli of its own chance drawn
    from its deciding party's seed; a party whose seed is fixed gives one draw for all trials."""
    counts = {}
    for i, decider in enumerate(deciders):
        p = 0.2 + 0.6 * ((i * 7919) % 100) / 100
        if vary in (decider, ALL_SEEDS):
            wins = int(rng.binomial(trials, p))
        else:
            wins = trials * int(rng.random() < p)
        counts[f"s{i}"] = (trials, wins)
    return counts


@pytest.mark.parametrize("agent_share", [0.25, 0.5, 0.8])
def test_known_shares_are_recovered(agent_share: float) -> None:
    rng = np.random.default_rng(5)
    n = 4000
    deciders = ["agent" if i < agent_share * n else "user" for i in range(n)]
    runs = {
        party: (f"r-{party}", _design(rng, deciders, 5, party), 0)
        for party in ("agent", "user", ALL_SEEDS)
    }
    split = variance_split(runs)
    # Each scenario's chance p is the same function of i whichever party decides it, so T
    # splits in proportion to the scenarios each party decides.
    ps = np.array([0.2 + 0.6 * ((i * 7919) % 100) / 100 for i in range(n)])
    share = float((ps * (1 - ps))[: int(agent_share * n)].sum() / (ps * (1 - ps)).sum())
    assert split.parties["agent"].share == pytest.approx(share, abs=0.03)
    assert split.parties["user"].share == pytest.approx(1 - share, abs=0.03)
    low, high = split.parties["agent"].share_ci95 or (0.0, 0.0)
    assert low < share < high
    # One decider per scenario: no interaction, ΣT ≈ V.
    assert split.interaction_excess == pytest.approx(0.0, abs=0.01)
    assert (
        split.parties["judge"].variance is None and "takes no seed" in split.parties["judge"].note
    )


def test_an_interaction_shows_as_excess() -> None:
    """Verdict = agent's coin XOR user's coin: each party alone moves every verdict (T = 1/4
    each), all seeds together also 1/4: ΣT − V = 1/4, the interaction counted twice."""
    rng = np.random.default_rng(9)
    n, k = 3000, 6

    def run(vary: str) -> dict[str, tuple[int, int]]:
        counts = {}
        for i in range(n):
            a_fixed, u_fixed = rng.random() < 0.5, rng.random() < 0.5
            wins = 0
            for _ in range(k):
                a = rng.random() < 0.5 if vary in ("agent", ALL_SEEDS) else a_fixed
                u = rng.random() < 0.5 if vary in ("user", ALL_SEEDS) else u_fixed
                wins += a != u
            counts[f"s{i}"] = (k, wins)
        return counts

    split = variance_split({p: (p, run(p), 0) for p in ("agent", "user", ALL_SEEDS)})
    assert split.parties["agent"].variance == pytest.approx(0.25, abs=0.01)
    assert split.parties["user"].share == pytest.approx(0.5, abs=0.03)
    assert split.interaction_excess == pytest.approx(0.25, abs=0.015)


def test_what_cannot_be_split_is_said() -> None:
    # One party measured: its share is of what was measured, said so.
    one = variance_split({"agent": ("r1", {"a": (3, 1), "b": (3, 2)}, 2)})
    assert one.parties["agent"].share == 1.0 and one.parties["agent"].not_judged == 2
    assert any("only agent's variance was measured" in n for n in one.notes)
    # Nothing varies: no shares, said.
    flat = variance_split({"agent": ("r1", {"a": (3, 3)}, 0), "user": ("r2", {"a": (3, 0)}, 0)})
    assert flat.parties["agent"].share is None
    assert flat.notes == [
        "no split: no verdict varies in any of the runs: there is no variance to share"
    ]
    # Single trials: nothing to estimate.
    single = variance_split({"user": ("r1", {"a": (1, 1)}, 0)})
    assert single.parties["user"].variance is None
    assert single.notes == ["no party's run has a scenario judged twice or more: no split"]
    with pytest.raises(StatisticsInputError, match="no scenario judged twice"):
        variance_shares({"agent": {"a": (2, 1)}, "user": {"b": (2, 1)}})


class _Row:
    def __init__(self, sid: str, trial: int, arm: str, success: bool | None) -> None:
        self.scenario_id, self.trial, self.arm = sid, trial, arm
        self.success = success
        self.termination = "infra_error" if success is None else "agent_stop"


def test_counts_by_arm_keep_arms_apart_and_count_the_unjudged() -> None:
    rows = [
        _Row("a", 0, "baseline", True),
        _Row("a", 1, "baseline", None),
        _Row("a", 0, "faults", False),
        _Row("a", 1, "faults", True),
    ]
    found = counts_by_arm(rows)
    assert found == {"baseline": ({"a": (1, 1)}, 1), "faults": ({"a": (2, 1)}, 0)}
