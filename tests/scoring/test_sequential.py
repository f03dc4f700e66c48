"""The gate's group-sequential design: its boundaries, its intervals, and its error rates."""

from __future__ import annotations

from statistics import NormalDist

import numpy as np
import pytest

from sessionproof.errors import StatisticsInputError
from sessionproof.scoring.stats._sequential import (
    Look,
    boundaries,
    check_levels,
    decide,
    hwang_shih_decani_spent,
    look,
    look_by_scenario,
    minimum_detectable_effect,
)
from sessionproof.scoring.stats._thinning import (
    FLOOR,
    WARMUP,
    InformationBoundary,
    ThinnedDesign,
    round_information,
    run_chances,
)


def test_boundaries_match_the_published_lan_demets_obrien_fleming_values() -> None:
    # Two-sided alpha 0.05, five equally spaced looks (Jennison & Turnbull 2000, table 7.6;
    # the R packages ldbounds and gsDesign give the same).
    published = (4.877, 3.357, 2.680, 2.290, 2.031)
    assert boundaries(5, 0.05) == pytest.approx(published, abs=0.005)


def test_pocock_type_spending_matches_its_published_values_too() -> None:
    # Lan-DeMets Pocock-type, two-sided alpha 0.05, five looks (R package ldbounds).
    published = (2.438, 2.426, 2.410, 2.397, 2.386)
    assert boundaries(5, 0.05, "pocock") == pytest.approx(published, abs=0.005)


def test_one_look_is_the_fixed_design() -> None:
    assert boundaries(1, 0.05)[0] == pytest.approx(1.95996, abs=0.002)
    last = boundaries(8, 0.05)
    assert list(last) == sorted(last, reverse=True)  # strict early, near 1.96 at the end
    assert 1.96 < last[-1] < 2.2


def test_hwang_shih_decani_boundaries_spend_what_the_family_says() -> None:
    # The first look's boundary is an exact normal tail: its two-sided spend at t = 1/5.
    for gamma in (-4.0, -1.0, 0.0, 1.0):
        first = boundaries(5, 0.05, gamma)[0]
        spent = hwang_shih_decani_spent(0.2, 0.05, gamma)
        assert first == pytest.approx(NormalDist().inv_cdf(1 - spent / 2), abs=0.005)
    assert hwang_shih_decani_spent(0.5, 0.05, 0.0) == pytest.approx(0.025)  # linear
    assert hwang_shih_decani_spent(1.0, 0.05, -2.0) == pytest.approx(0.05)
    # γ = −4 is close to O'Brien-Fleming at the last look, and γ = 1 to Pocock's flat line.
    assert boundaries(5, 0.05, -4.0)[-1] == pytest.approx(2.031, abs=0.01)
    flat = boundaries(5, 0.05, 1.0)
    assert max(flat) - min(flat) < 0.1
    # between them, the boundaries fall from look to look.
    middle = boundaries(5, 0.05, -1.0)
    assert list(middle) == sorted(middle, reverse=True)


def test_look_by_scenario_weighs_every_seen_scenario_alike() -> None:
    # Two pairs of +1 in the first scenario, one 0 in the second: the mean of the means.
    at = look_by_scenario([[1.0, 1.0], [0.0], []], 2, 8, 0.05, -1.0)
    assert at.estimate == pytest.approx(0.5)
    assert at.pairs == 3
    # with equal counts it is the plain look.
    rng = np.random.default_rng(5)
    rows = [list(rng.choice([-1.0, 0.0, 1.0], size=3)) for _ in range(10)]
    plain = look([d for row in rows for d in row], 3, 8, 0.05)
    scenario = look_by_scenario(rows, 3, 8, 0.05)
    assert (scenario.estimate, scenario.se) == pytest.approx((plain.estimate, plain.se))


def _block_gate(
    rng: np.random.Generator, pa: np.ndarray, pb: np.ndarray, rounds: int, blocks: int
) -> str:
    """A gate that looks after each block of the scenarios (random order fixed per gate)."""
    order = rng.permutation(pa.size)
    cuts = [round(j * pa.size / blocks) for j in range(blocks + 1)]
    rows: list[list[float]] = [[] for _ in range(pa.size)]
    verdict, at = "inconclusive", 0
    for _ in range(rounds):
        for j in range(blocks):
            for i in order[cuts[j] : cuts[j + 1]]:
                rows[i].append(float(rng.random() < pb[i]) - float(rng.random() < pa[i]))
            at += 1
            verdict = decide(look_by_scenario(rows, at, rounds * blocks, 0.05, -1.0), 0.05)
            if verdict != "inconclusive":
                return verdict
    return verdict


def test_block_looks_keep_false_verdicts_under_alpha() -> None:
    rng = np.random.default_rng(36)
    gates, rounds, blocks, n = 600, 5, 4, 24
    at_margin = [_block_gate(rng, *_arms(rng, n, -0.05), rounds, blocks) for _ in range(gates)]
    at_zero = [_block_gate(rng, *_arms(rng, n, 0.0), rounds, blocks) for _ in range(gates // 3)]
    assert sum(v in ("not_worse", "better") for v in at_margin) / gates <= 0.05
    assert sum(v in ("worse", "better") for v in at_zero) / len(at_zero) <= 0.05
    # and a large regression is still found, inside the first round or two.
    strong, weak = np.full(24, 0.9), np.full(24, 0.5)
    large = [_block_gate(rng, strong, weak, rounds, blocks) for _ in range(40)]
    assert large.count("worse") == 40


def _gate(rng: np.random.Generator, pa: np.ndarray, pb: np.ndarray, looks: int) -> str:
    diffs: list[float] = []
    verdict = "inconclusive"
    for r in range(1, looks + 1):
        a = rng.random(pa.size) < pa
        b = rng.random(pb.size) < pb
        diffs.extend(b.astype(float) - a.astype(float))
        verdict = decide(look(diffs, r, looks, 0.05), 0.05)
        if verdict != "inconclusive":
            break
    return verdict


def _arms(rng: np.random.Generator, n: int, delta: float) -> tuple[np.ndarray, np.ndarray]:
    """Heterogeneous per-scenario success probabilities whose mean difference is `delta`."""
    pa = rng.uniform(0.35, 0.9, n)
    return pa, np.clip(pa + delta, 0.0, 1.0)


def test_false_verdicts_stay_under_alpha_at_the_margin_and_at_no_difference() -> None:
    rng = np.random.default_rng(20261206)
    gates, looks, n = 300, 6, 25
    at_margin = [_gate(rng, *_arms(rng, n, -0.05), looks) for _ in range(gates)]
    at_zero = [_gate(rng, *_arms(rng, n, 0.0), looks) for _ in range(gates)]
    # At the margin a candidate is not "not worse"; with no difference it is not "worse".
    wrong_at_margin = sum(v in ("not_worse", "better") for v in at_margin) / gates
    wrong_at_zero = sum(v in ("worse", "better") for v in at_zero) / gates
    assert wrong_at_margin <= 0.05
    assert wrong_at_zero <= 0.05
    # and the design decides something when it can: no difference is often not_worse.
    assert at_zero.count("not_worse") > 0


def test_a_large_regression_is_found_worse_early() -> None:
    rng = np.random.default_rng(7)
    verdicts = [_gate(rng, np.full(30, 0.9), np.full(30, 0.6), 8) for _ in range(50)]
    assert verdicts.count("worse") == 50


def test_decide_reads_the_interval_against_zero_and_the_margin() -> None:
    def at(low: float, high: float) -> Look:
        return Look(
            look=1, pairs=10, estimate=(low + high) / 2, low=low, high=high, se=0.1, critical=2.0
        )

    assert decide(at(0.01, 0.3), 0.05) == "better"
    assert decide(at(-0.04, 0.3), 0.05) == "not_worse"
    assert decide(at(-0.4, -0.06), 0.05) == "worse"
    assert decide(at(-0.2, 0.1), 0.05) == "inconclusive"
    assert decide(at(-0.2, -0.01), 0.05) == "inconclusive"  # worse, but maybe within margin


def test_identical_pairs_still_get_a_width() -> None:
    first = look([0.0] * 30, 1, 8, 0.05)
    assert first.low < 0 < first.high
    assert decide(first, 0.05) == "inconclusive"  # thirty ties at the first look decide nothing
    last = look([0.0] * 240, 8, 8, 0.05)
    assert decide(last, 0.05) == "not_worse"
    mde = minimum_detectable_effect(last)
    assert mde is not None and 0 < mde < 0.1


def test_no_pairs_is_the_whole_range() -> None:
    empty = look([], 1, 3, 0.05)
    assert (empty.low, empty.high) == (-1.0, 1.0)
    assert decide(empty, 0.05) == "inconclusive"
    assert minimum_detectable_effect(empty) is None


@pytest.mark.parametrize(
    ("call", "says"),
    [
        (lambda: check_levels(0.0, 0.05), "alpha"),
        (lambda: check_levels(0.05, -0.1), "margin"),
        (lambda: check_levels(float("nan"), 0.05), "alpha"),
        (lambda: boundaries(0, 0.05), "looks"),
        (lambda: look([2.0], 1, 1, 0.05), "[-1, 1]"),
        (lambda: look([0.0], 3, 2, 0.05), "look 3"),
        (lambda: boundaries(5, 0.05, "linear"), "spending must be"),  # type: ignore[arg-type]
        (lambda: boundaries(5, 0.05, float("nan")), "gamma"),
        (lambda: look_by_scenario([[2.0]], 1, 1, 0.05), "[-1, 1]"),
        (lambda: look_by_scenario([[0.0]], 2, 1, 0.05), "look 2"),
    ],
)
def test_bad_input_says_what(call: object, says: str) -> None:
    with pytest.raises(StatisticsInputError, match=None) as info:
        call()  # type: ignore[operator]
    assert says in str(info.value)


# The thinned design: stable scenarios run in later rounds only by chance.


def test_information_boundaries_at_equal_fractions_are_the_equal_looks_ones() -> None:
    for spending in ("obrien-fleming", "pocock", -1.0):
        design = InformationBoundary(0.05, spending)  # type: ignore[arg-type]
        mine = [design.next(r / 8, final=r == 8) for r in range(1, 9)]
        assert mine == pytest.approx(boundaries(8, 0.05, spending), abs=0.01)  # type: ignore[arg-type]


def test_information_boundaries_spend_by_the_fraction_and_the_last_look_spends_the_rest() -> None:
    # Unequal fractions: the first look is an exact normal tail of the alpha spent by then.
    design = InformationBoundary(0.05, -1.0)
    first = design.next(0.13)
    spent = hwang_shih_decani_spent(0.13, 0.05, -1.0)
    assert first == pytest.approx(NormalDist().inv_cdf(1 - spent / 2), abs=0.005)
    design.next(0.3)
    # a last look short of full information spends all the alpha left: a lower boundary
    # than a look at the same fraction that keeps some back.
    early_end = InformationBoundary(0.05, -1.0)
    early_end.next(0.13)
    early_end.next(0.3)
    assert early_end.next(0.55, final=True) < design.next(0.55)
    with pytest.raises(StatisticsInputError, match="increase"):
        design.next(0.4)


def test_a_stable_scenario_is_thinned_and_an_unstable_one_keeps_running() -> None:
    discords = np.array([0.0, 3.0, 1.0, 0.0])
    trials = np.array([6.0, 6.0, 6.0, 20.0])
    # the first rounds run every scenario.
    assert run_chances(discords, trials, WARMUP - 1).tolist() == [1.0] * 4
    chances = run_chances(discords, trials, WARMUP)
    assert chances[1] == 1.0  # half its pairs disagreed: it runs every round
    assert FLOOR <= chances[3] < chances[0] < chances[2] < 1.0  # the longer stable, the rarer
    assert chances[3] == FLOOR  # twenty agreeing pairs: down to the floor, never zero
    # over many rounds a stable scenario runs in about its share of them; the other, in all.
    rng = np.random.default_rng(4)
    ran = rng.random((2000, 4)) < chances
    assert ran[:, 1].all()
    assert ran[:, 0].mean() == pytest.approx(chances[0], abs=0.03)
    # a round of them holds less information than a full round, never more.
    assert 0.0 < round_information(discords, trials, chances) < 1.0
    assert round_information(discords, trials, np.ones(4)) == pytest.approx(1.0)
    with pytest.raises(StatisticsInputError, match="counts"):
        run_chances(np.array([3.0]), np.array([2.0]), 4)


def test_full_rounds_of_the_thinned_design_give_the_plain_interval() -> None:
    rng = np.random.default_rng(11)
    design = ThinnedDesign(30, 6, 0.05, -1.0)
    diffs: list[float] = []
    for _ in range(WARMUP):  # the warm-up rounds run every scenario: the plain design
        assert design.chances().tolist() == [1.0] * 30
        d = rng.choice([-1.0, 0.0, 1.0], size=30, p=[0.2, 0.6, 0.2])
        diffs.extend(d)
        mine = design.add(np.ones(30, dtype=bool), d)
    plain = look(diffs, WARMUP, 6, 0.05, -1.0)
    assert mine.estimate == pytest.approx(plain.estimate)
    assert mine.se == pytest.approx(plain.se, rel=0.02)
    assert mine.critical == pytest.approx(plain.critical, abs=0.01)


@pytest.mark.slow
def test_thinned_rounds_estimate_the_mean_over_scenarios_without_bias() -> None:
    # Stable scenarios that sometimes disagree (and so differ) and uncertain ones: the
    # weighted mean of the rounds is unbiased for the mean of the per-scenario differences.
    rng = np.random.default_rng(2026)
    pa = np.array([0.97] * 10 + [0.03] * 5 + list(np.linspace(0.2, 0.8, 15)))
    pb = np.clip(pa - np.array([0.06] * 10 + [0.0] * 5 + [0.08] * 15), 0, 1)
    truth = float(np.mean(pb - pa))
    estimates, sessions = [], []
    for _ in range(400):
        design = ThinnedDesign(pa.size, 8, 0.05, -1.0, cap=1.0)
        while not design.final:
            ran = rng.random(pa.size) < design.chances()
            d = (rng.random(pa.size) < pb).astype(float) - (rng.random(pa.size) < pa)
            at = design.add(ran, d)
        estimates.append(at.estimate)
        sessions.append(design.pairs)
    spread = float(np.std(estimates)) / np.sqrt(len(estimates))
    assert abs(float(np.mean(estimates)) - truth) < 3 * spread
    assert np.mean(sessions) < 0.9 * 8 * pa.size  # the stable scenarios ran less


def _thinned_gate(rng: np.random.Generator, pa: np.ndarray, pb: np.ndarray, rounds: int) -> str:
    design = ThinnedDesign(pa.size, rounds, 0.05, -1.0)
    verdict = "inconclusive"
    while not design.final:
        ran = rng.random(pa.size) < design.chances()
        d = (rng.random(pa.size) < pb).astype(float) - (rng.random(pa.size) < pa)
        verdict = decide(design.add(ran, np.where(ran, d, np.nan)), 0.05)
        if verdict != "inconclusive":
            break
    return verdict


def _stable_heavy_arms(rng: np.random.Generator, n: int, delta: float) -> tuple[np.ndarray, ...]:
    """A third of the scenarios nearly always pass, a sixth nearly always fail (the suites
    thinning is for), the candidate shifted to a mean difference `delta`."""
    kind = rng.random(n)
    pa = np.where(
        kind < 1 / 3,
        rng.uniform(0.93, 1.0, n),
        np.where(kind < 0.5, rng.uniform(0.0, 0.07, n), rng.uniform(0.1, 0.9, n)),
    )
    lo, hi = -1.0, 1.0
    for _ in range(50):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if np.mean(np.clip(pa + mid, 0, 1) - pa) < delta else (lo, mid)
    return pa, np.clip(pa + lo, 0, 1)


@pytest.mark.slow
def test_thinned_gates_keep_false_verdicts_under_alpha() -> None:
    rng = np.random.default_rng(36)
    gates, rounds, n = 400, 6, 30
    at_margin = [
        _thinned_gate(rng, *_stable_heavy_arms(rng, n, -0.05), rounds) for _ in range(gates)
    ]
    at_zero = [
        _thinned_gate(rng, *_stable_heavy_arms(rng, n, 0.0), rounds) for _ in range(gates // 2)
    ]
    assert sum(v in ("not_worse", "better") for v in at_margin) / gates <= 0.05
    assert sum(v in ("worse", "better") for v in at_zero) / len(at_zero) <= 0.05
    assert at_zero.count("not_worse") > 0  # it decides when it can
    strong, weak = np.full(30, 0.95), np.full(30, 0.55)
    assert [_thinned_gate(rng, strong, weak, rounds) for _ in range(30)].count("worse") == 30
