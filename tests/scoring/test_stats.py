"""Statistics on hand-computed cases and against scipy/statsmodels."""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pytest
from scipy.stats import binomtest
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.power import NormalIndPower
from statsmodels.stats.proportion import proportion_confint, proportion_effectsize

from sessionproof.errors import StatisticsInputError
from sessionproof.records import Outcome, Session, TerminationReason
from sessionproof.scoring.stats import paired_comparison, pass_hat_k, wilson_interval
from sessionproof.scoring.stats._internal import (
    bootstrap_ci,
    flakiness,
    mcnemar_exact,
    pass_at_k,
    scenarios_needed,
    trial_table,
)

# A per-scenario count table, worked by hand:
#   a: 4 judged trials, 3 successes (one infra trial dropped)
#   b: 4 judged, 4 successes
#   c: 4 judged, 1 success
#   d: 1 judged trial only (two infra): out for k >= 2
TABLE: dict[str, list[bool | None]] = {
    "a": [True, None, True, False, True],
    "b": [True, True, True, True],
    "c": [False, False, True, False],
    "d": [True, None, None],
}


def test_pass_hat_k_by_hand() -> None:
    # k=1: (3/4 + 4/4 + 1/4 + 1/1) / 4 = 0.75
    assert pass_hat_k(TABLE, 1).value == pytest.approx(0.75)
    # k=2: C(3,2)/C(4,2)=1/2, 1, C(1,2)/C(4,2)=0; d excluded -> (0.5 + 1 + 0) / 3
    two = pass_hat_k(TABLE, 2)
    assert two.value == pytest.approx(0.5)
    assert two.excluded == ["d"]
    assert two.infra_trials == 3
    assert two.per_scenario == {"a": 0.5, "b": 1.0, "c": 0.0}
    # k=4: only all-success scenarios count 1: (0 + 1 + 0) / 3
    assert pass_hat_k(TABLE, 4).value == pytest.approx(1 / 3)
    assert pass_hat_k(TABLE, 5).value is None
    assert sorted(pass_hat_k(TABLE, 5).excluded) == ["a", "b", "c", "d"]


def test_pass_at_k_by_hand() -> None:
    # k=2: a: 1 - C(1,2)/6 = 1; b: 1; c: 1 - C(3,2)/6 = 0.5
    assert pass_at_k(TABLE, 2).value == pytest.approx(2.5 / 3)
    # k=1 equals pass^1 (the plain success rate per scenario).
    assert pass_at_k(TABLE, 1).value == pytest.approx(pass_hat_k(TABLE, 1).value or -1)


def test_pass_k_monotone_in_k_on_random_tables() -> None:
    rnd = random.Random(3)
    table = {f"s{i}": [rnd.random() < 0.6 for _ in range(8)] for i in range(30)}
    hats = [pass_hat_k(table, k).value or 0.0 for k in range(1, 9)]
    ats = [pass_at_k(table, k).value or 0.0 for k in range(1, 9)]
    assert all(x >= y for x, y in itertools.pairwise(hats))
    assert all(x <= y for x, y in itertools.pairwise(ats))


def test_pass_k_rejects_bad_k() -> None:
    with pytest.raises(StatisticsInputError):
        pass_hat_k(TABLE, 0)


@pytest.mark.parametrize(("successes", "n"), [(0, 10), (3, 10), (10, 10), (57, 200), (1, 1)])
@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.99])
def test_wilson_matches_statsmodels(successes: int, n: int, confidence: float) -> None:
    low, high = wilson_interval(successes, n, confidence)
    ref_low, ref_high = proportion_confint(successes, n, alpha=1 - confidence, method="wilson")
    assert low == pytest.approx(max(0.0, ref_low), abs=1e-12)
    assert high == pytest.approx(min(1.0, ref_high), abs=1e-12)


def test_wilson_by_hand_and_bad_input() -> None:
    # 8 of 10 at z=1.96: centre (0.8 + 0.19208) / 1.38416, half 1.96*sqrt(0.016+0.009604)/1.38416
    low, high = wilson_interval(8, 10)
    assert low == pytest.approx(0.4901625, abs=1e-6)
    assert high == pytest.approx(0.9433178, abs=1e-6)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    for bad in ((11, 10), (-1, 10), (1, -1)):
        with pytest.raises(StatisticsInputError):
            wilson_interval(*bad)
    with pytest.raises(StatisticsInputError):
        wilson_interval(1, 2, confidence=1.0)


@pytest.mark.parametrize(("only_a", "only_b"), [(0, 0), (1, 0), (5, 1), (3, 9), (12, 12), (0, 7)])
def test_mcnemar_exact_matches_scipy_and_statsmodels(only_a: int, only_b: int) -> None:
    p = mcnemar_exact(only_a, only_b)
    table = [[10, only_a], [only_b, 4]]
    assert p == pytest.approx(min(1.0, mcnemar(table, exact=True).pvalue), abs=1e-12)
    if only_a + only_b:
        assert p == pytest.approx(binomtest(only_b, only_a + only_b).pvalue, abs=1e-12)


def test_mcnemar_by_hand() -> None:
    # 6 discordant pairs all one way: 2 * 0.5**6
    assert mcnemar_exact(0, 6) == pytest.approx(2 / 64)
    with pytest.raises(StatisticsInputError):
        mcnemar_exact(-1, 2)


def test_paired_comparison_counts_and_interval() -> None:
    a = {f"s{i}": i < 12 for i in range(20)}  # 12 / 20
    b = {f"s{i}": 4 <= i < 20 for i in range(20)}  # 16 / 20; only_a: s0..s3, only_b: s12..s19
    b["gone"] = True
    a["infra"], b["infra"] = True, None
    result = paired_comparison(a, b, n_resamples=2000, seed=1)
    assert result.scenarios == 20
    assert (result.only_a, result.only_b) == (4, 8)
    assert result.rate_a == pytest.approx(0.6) and result.rate_b == pytest.approx(0.8)
    assert result.difference.estimate == pytest.approx(0.2)
    assert result.difference.low < 0.2 < result.difference.high
    assert result.mcnemar_p == pytest.approx(binomtest(4, 12).pvalue)
    assert result.unpaired == ["gone", "infra"]
    again = paired_comparison(a, b, n_resamples=2000, seed=1)
    assert again.difference == result.difference
    with pytest.raises(StatisticsInputError):
        paired_comparison({"x": True}, {"y": False})


def test_bootstrap_is_seeded_and_covers_the_mean() -> None:
    values = [1.0] * 30 + [0.0] * 20
    one = bootstrap_ci(values, seed=5, n_resamples=3000)
    two = bootstrap_ci(values, seed=5, n_resamples=3000)
    assert one == two
    assert one.estimate == pytest.approx(0.6)
    # The percentile interval of a mean of 50 Bernoulli(0.6) is about ±1.96*sqrt(.24/50).
    half = 1.96 * math.sqrt(0.24 / 50)
    assert one.low == pytest.approx(0.6 - half, abs=0.03)
    assert one.high == pytest.approx(0.6 + half, abs=0.03)
    assert bootstrap_ci([0.7]).low == bootstrap_ci([0.7]).high == 0.7
    for bad in ([], [float("nan"), 1.0]):
        with pytest.raises(StatisticsInputError):
            bootstrap_ci(bad)


@pytest.mark.parametrize(("a", "b"), [(0.5, 0.6), (0.7, 0.86), (0.1, 0.2), (0.3, 0.9)])
def test_unpaired_sample_size_matches_statsmodels(a: float, b: float) -> None:
    ref = NormalIndPower().solve_power(
        effect_size=proportion_effectsize(b, a), alpha=0.05, power=0.8
    )
    assert scenarios_needed(a, b) == math.ceil(ref)


@pytest.mark.slow
def test_paired_sample_size_by_hand_and_by_simulation() -> None:
    # Connor: delta 0.16, psi 0.2: (1.95996*sqrt(.2) + 0.84162*sqrt(.2-.0256))^2 / .0256
    n = scenarios_needed(0.70, 0.86, discordant=0.2)
    by_hand = (1.959964 * math.sqrt(0.2) + 0.841621 * math.sqrt(0.2 - 0.0256)) ** 2 / 0.0256
    assert n == math.ceil(by_hand)
    # Simulate n paired scenarios with those discordance rates; exact McNemar at 5% should
    # reject about 80% of the time (the exact test is a little conservative).
    rng = np.random.default_rng(11)
    only_b = rng.binomial(n, 0.18, size=1500)
    only_a = rng.binomial(n - only_b, 0.02 / 0.82)
    power = np.mean(
        [mcnemar_exact(int(x), int(y)) < 0.05 for x, y in zip(only_a, only_b, strict=True)]
    )
    assert 0.72 <= power <= 0.88
    with pytest.raises(StatisticsInputError):
        scenarios_needed(0.7, 0.86, discordant=0.1)
    with pytest.raises(StatisticsInputError):
        scenarios_needed(0.5, 0.5)


def test_flakiness_counts_flips_across_judged_trials() -> None:
    found = {f.scenario_id: f for f in flakiness(TABLE)}
    assert found["a"].flips == 2 and found["a"].trials == 4  # T T F T (None skipped)
    assert found["a"].flip_rate == pytest.approx(2 / 3) and found["a"].flaky
    assert found["b"].flips == 0 and not found["b"].flaky
    assert found["c"].flips == 2 and found["c"].successes == 1
    assert found["d"].flip_rate is None and not found["d"].flaky


def _session(sid: str, trial: int, ok: bool | None) -> Session:
    infra = ok is None
    return Session(
        run_id="r",
        session_id=f"{sid}-{trial}",
        scenario_id=sid,
        trial=trial,
        termination=TerminationReason.infra_error if infra else TerminationReason.agent_stop,
        outcome=None if infra else Outcome(success=bool(ok), reward=float(bool(ok))),
    )


def test_trial_table_from_sessions_orders_trials_and_marks_infra() -> None:
    sessions = [_session("x", 2, True), _session("x", 0, False), _session("x", 1, None)]
    sessions.append(_session("y", 0, True))
    assert trial_table(sessions) == {"x": [False, None, True], "y": [True]}


def test_scenarios_needed_takes_a_discordant_share_equal_to_the_difference_from_counts() -> None:
    # 1 of 3 vs 3 of 3 with every pair discordant where they differ: psi == |b - a|, though
    # the two floats differ in their last bit (a run's arms table crashed on this).
    n = scenarios_needed(1 / 3, 3 / 3, discordant=(0 + 2) / 3)
    assert n >= 1
    with pytest.raises(StatisticsInputError):
        scenarios_needed(1 / 3, 3 / 3, discordant=0.5)


@pytest.mark.parametrize("seed", [0, 3, 17])
@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.99])
def test_bootstrap_is_scipys_percentile_bootstrap(seed: int, confidence: float) -> None:
    # Our interval without importing scipy.stats: the same draws and cut as scipy's own.
    from scipy.stats import bootstrap

    rng = np.random.default_rng(seed + 100)
    values = list(rng.choice([0.0, 0.5, 1.0], size=int(rng.integers(3, 80))))
    values[0], values[1] = 0.0, 1.0  # never all equal
    ours = bootstrap_ci(values, confidence=confidence, n_resamples=4000, seed=seed)
    ref = bootstrap(
        (np.asarray(values),),
        np.mean,
        confidence_level=confidence,
        n_resamples=4000,
        method="percentile",
        rng=np.random.default_rng(seed),
    ).confidence_interval
    assert ours.low == pytest.approx(ref.low, abs=1e-12)
    assert ours.high == pytest.approx(ref.high, abs=1e-12)


def test_bootstrap_in_blocks_draws_as_one_block() -> None:
    # 40,000 resamples of 60 values: more than one block of draws; the interval is the one
    # of all resamples drawn at once.
    values = [float(i % 3 == 0) for i in range(60)]
    ours = bootstrap_ci(values, n_resamples=40_000, seed=4)
    rng = np.random.default_rng(4)
    means = np.asarray(values)[rng.integers(0, 60, size=(40_000, 60))].mean(axis=-1)
    low, high = np.quantile(means, [0.025, 0.975])
    assert (ours.low, ours.high) == (float(low), float(high))


def test_reused_resamples_give_the_intervals_fresh_draws_give(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from sessionproof.scoring.stats import _paired

    draw = random.Random(8)
    series = [[draw.random() for _ in range(50)], [1.0, 0.0, 0.0, 1.0, 1.0] * 10]
    cached = [bootstrap_ci(values, seed=3) for values in series]
    again = [bootstrap_ci(values, seed=3) for values in series]  # from the cache
    monkeypatch.setattr(_paired, "_CACHED_DRAWS", 0)  # every interval draws its own
    fresh = [bootstrap_ci(values, seed=3) for values in series]
    assert cached == again == fresh
    assert bootstrap_ci(series[0], seed=4) != fresh[0]  # another seed, other resamples
    [block] = _paired._cached_picks(3, 50, 10_000)
    assert not block.flags.writeable
