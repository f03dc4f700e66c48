"""Statistics with honest error bars: Wilson intervals, pass^k / pass@k with the infra-error
rule stated, bootstrap over scenarios, paired run comparison (exact McNemar), sample sizes,
and per-scenario flakiness. Pure functions over plain counts and verdict tables."""

from ._paired import Interval, PairedComparison, bootstrap_ci, mcnemar_exact, paired_comparison
from ._passk import (
    Flakiness,
    PassK,
    TrialTable,
    flakiness,
    pass_at_k,
    pass_hat_k,
    trial_table,
)
from ._proportion import scenarios_needed, wilson_interval

__all__ = [
    "Flakiness",
    "Interval",
    "PairedComparison",
    "PassK",
    "TrialTable",
    "bootstrap_ci",
    "flakiness",
    "mcnemar_exact",
    "paired_comparison",
    "pass_at_k",
    "pass_hat_k",
    "scenarios_needed",
    "trial_table",
    "wilson_interval",
]
