"""Statistics with honest error bars: Wilson intervals, pass^k / pass@k with the infra-error
rule stated, bootstrap over scenarios, paired run comparison (exact McNemar), sample sizes,
and per-scenario flakiness. Pure functions over plain counts and verdict tables."""

from ._paired import Interval, paired_comparison
from ._passk import pass_hat_k
from ._proportion import wilson_interval

__all__ = [
    "Interval",
    "paired_comparison",
    "pass_hat_k",
    "wilson_interval",
]
