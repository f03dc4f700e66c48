"""The miner against planted causes: recall, precision, the scenario confounder, null FDR."""

from __future__ import annotations

import pytest

from sessionproof.patterns import MineOptions
from sessionproof.patterns._internal import mine_matrix, planted_scores, planted_sessions

pytestmark = pytest.mark.slow  # most tests here take seconds each


def test_planted_patterns_come_back_and_the_confounder_does_not() -> None:
    data = planted_sessions(10_000, seed=3)
    mined = mine_matrix(data.matrix, MineOptions(), exploratory=True)
    found = [f.pattern for f in mined.findings if f.q_value < 0.05]
    recall, precision = planted_scores(found, data.planted)
    assert recall >= 0.9 and precision >= 0.9, found
    assert all(data.confounder not in f for f in found)
    # Pooled, the hard scenarios' marker is the strongest "pattern" of all: stratifying is
    # what keeps it out.
    assert data.confounder in mined.exploratory[0].pattern
    assert all(f.stratified for f in mined.findings)
    top = mined.findings[0]
    assert top.odds_ratio > 1 and top.ci[0] > 1 and 0 < top.covers_failures < 1
    assert top.examples and top.fail_support > top.pass_support


def test_null_labels_keep_the_false_discovery_rate_under_five_percent() -> None:
    # Labels independent of the sequences: every discovery is false, so the FDR of a seed is
    # 1 when anything is found and 0 otherwise.
    rates = []
    for seed in range(20):
        data = planted_sessions(2_000, seed=seed, null=True)
        mined = mine_matrix(data.matrix, MineOptions())
        rates.append(1.0 if mined.findings else 0.0)
    assert sum(rates) / len(rates) <= 0.05


def test_a_super_pattern_adding_nothing_is_dropped() -> None:
    data = planted_sessions(10_000, seed=5)
    found = [f.pattern for f in mine_matrix(data.matrix, MineOptions()).findings]
    # One finding per plant: no echo (the plant plus a neighbouring noise token).
    assert len(found) == len(data.planted), found
