"""Bootstrap intervals over scenarios, and two runs compared on the same scenarios."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from ...errors import StatisticsInputError
from ._proportion import scenarios_needed

if TYPE_CHECKING:  # NumPy is imported where an interval is drawn: a command that only
    import numpy as np  # stores sessions (`score`) skips its ~40 ms import.


class Interval(BaseModel):
    """A point estimate with its confidence interval."""

    model_config = ConfigDict(extra="forbid")

    estimate: float
    low: float
    high: float
    confidence: float


def bootstrap_ci(
    values: Sequence[float],
    *,
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    seed: int = 0,
) -> Interval:
    """Percentile bootstrap interval of the mean of per-scenario `values`
    (`n_resamples` resamples with replacement, cut at the two tails of `1 - confidence`).

    Scenarios are the resampled unit (trials of one scenario are not independent), so pass
    one value per scenario: a 0/1 verdict, a success rate, a pass^k estimate. Same `seed`,
    same interval. One value gives a zero-width interval; none raises `StatisticsInputError`.
    """
    if not 0.0 < confidence < 1.0:
        raise StatisticsInputError(f"confidence must be in (0, 1), got {confidence}")
    if n_resamples < 1:
        raise StatisticsInputError(f"n_resamples must be at least 1, got {n_resamples}")
    import numpy as np

    data = np.asarray(values, dtype=float)
    if data.ndim != 1 or data.size == 0:
        raise StatisticsInputError("bootstrap needs a non-empty flat list of per-scenario values")
    if not np.isfinite(data).all():
        raise StatisticsInputError("bootstrap values must be finite numbers")
    estimate = float(data.mean())
    if data.size == 1 or bool((data == data[0]).all()):
        # Every resample has the same mean: the interval is that one point.
        return Interval(estimate=estimate, low=estimate, high=estimate, confidence=confidence)
    # scipy.stats.bootstrap(method="percentile") draws and cuts the same way (the same
    # interval for the same seed, within a rounding: tests/scoring/test_stats.py), but
    # importing scipy.stats takes 1.1-1.4 s on this machine, more than a large run's report.
    if data.size * n_resamples <= _CACHED_DRAWS:
        blocks: Iterable[np.ndarray] = _cached_picks(seed, data.size, n_resamples)
    else:
        blocks = _picks(seed, data.size, n_resamples)
    means = [data[picks].mean(axis=-1) for picks in blocks]
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(np.concatenate(means), [tail, 1.0 - tail])
    return Interval(estimate=estimate, low=float(low), high=float(high), confidence=confidence)


_CACHED_DRAWS = 2_000_000
"""Resample indices kept for reuse up to this many draws (16 MB): a run's report bootstraps
session accuracy and pass^k for every k over the same scenarios with the same seed, i.e.
over the very same resamples, and drawing them was most of each interval's cost."""


def _picks(seed: int, size: int, n_resamples: int) -> Iterator[np.ndarray]:
    """The resamples' indices, in blocks of about a million draws: memory stays flat on
    suites of thousands of scenarios, and the draws are the same as in one block."""
    import numpy as np

    rng = np.random.default_rng(seed)
    rows = max(1, 1_000_000 // size)
    for done in range(0, n_resamples, rows):
        yield rng.integers(0, size, size=(min(rows, n_resamples - done), size))


@functools.lru_cache(maxsize=4)
def _cached_picks(seed: int, size: int, n_resamples: int) -> tuple[np.ndarray, ...]:
    blocks = tuple(_picks(seed, size, n_resamples))
    for block in blocks:
        block.flags.writeable = False  # shared by every interval drawn with this seed
    return blocks


def mcnemar_exact(only_a: int, only_b: int) -> float:
    """Two-sided exact McNemar p-value: a binomial test of `only_a` successes in the
    `only_a + only_b` discordant pairs at p = 1/2. No discordant pair gives p = 1."""
    if only_a < 0 or only_b < 0:
        raise StatisticsInputError(f"discordant counts must be >= 0, got {only_a}, {only_b}")
    if only_a + only_b == 0:
        return 1.0
    from scipy.stats import binomtest

    return float(binomtest(only_a, only_a + only_b, 0.5, alternative="two-sided").pvalue)


class PairedComparison(BaseModel):
    """Run B against run A on the scenarios both judged."""

    model_config = ConfigDict(extra="forbid")

    scenarios: int
    """Scenarios judged in both runs (the pairs)."""
    rate_a: float
    rate_b: float
    only_a: int
    """Pairs where A succeeded and B failed."""
    only_b: int
    """Pairs where B succeeded and A failed."""
    difference: Interval
    """rate_b − rate_a with a paired bootstrap interval over scenarios."""
    mcnemar_p: float
    """Two-sided exact McNemar p-value on the discordant pairs."""
    unpaired: list[str] = Field(default_factory=list)
    """Scenarios left out: present in one run only, or not judged (None) in either."""

    def pairs_needed(self) -> int | None:
        """Pairs needed to detect the observed difference (two-sided α 0.05, power 0.8,
        McNemar with the observed discordant share); None when the rates are equal."""
        if self.rate_a == self.rate_b:
            return None
        discordant = (self.only_a + self.only_b) / self.scenarios
        return scenarios_needed(self.rate_a, self.rate_b, discordant=discordant)


def paired_comparison(
    run_a: Mapping[str, bool | None],
    run_b: Mapping[str, bool | None],
    *,
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    seed: int = 0,
) -> PairedComparison:
    """Compare two runs scenario by scenario (one verdict per scenario and run).

    None marks a scenario the run could not judge (infra error): such a scenario, or one
    seen by one run only, is left out of the pairs and listed in `unpaired`. With several
    trials per scenario, reduce them first (e.g. the first judged trial). Raises
    `StatisticsInputError` when no scenario is judged by both runs.
    """
    pairs: list[tuple[bool, bool]] = []
    unpaired: list[str] = []
    for sid in sorted(set(run_a) | set(run_b)):
        a, b = run_a.get(sid), run_b.get(sid)
        if a is None or b is None:
            unpaired.append(sid)
        else:
            pairs.append((bool(a), bool(b)))
    if not pairs:
        raise StatisticsInputError("the two runs judged no scenario in common")
    only_a = sum(1 for a, b in pairs if a and not b)
    only_b = sum(1 for a, b in pairs if b and not a)
    n = len(pairs)
    diffs = [float(b) - float(a) for a, b in pairs]
    return PairedComparison(
        scenarios=n,
        rate_a=sum(a for a, _ in pairs) / n,
        rate_b=sum(b for _, b in pairs) / n,
        only_a=only_a,
        only_b=only_b,
        difference=bootstrap_ci(diffs, confidence=confidence, n_resamples=n_resamples, seed=seed),
        mcnemar_p=mcnemar_exact(only_a, only_b),
        unpaired=unpaired,
    )
