"""The noise floor of one arm of a run: how much its verdicts move between trials, how much of
their variance lies between scenarios, what difference its design (scenarios × trials) can
detect, and how many trials a target difference would need.

`noise_floor` reads per-scenario counts of judged trials (sessions not judged are left out and
counted in `not_judged`, never a pass nor a failure); `noise_of_report` takes them from an
arm's `MetricsReport`, so the numbers come with no second read of the sessions. Whatever is
not estimable is None with the reason in `notes`, never a made-up number. The formulas are
in `stats._noise` and docs/noise.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field

from ..errors import StatisticsInputError
from ..records import Session
from ._metrics import MetricsReport
from .stats._internal import (
    Counts,
    counts_of,
    design_effect,
    difference_floor,
    flip_rate,
    icc_anova,
    icc_bootstrap,
    min_detectable_difference,
    trial_table,
    trials_needed,
)

DEFAULT_TARGET_MDE = 0.05
"""The difference `trials_needed` is computed for unless another is asked for."""

NOISE_DEFINITIONS: dict[str, str] = {
    "flip_rate": "mean over scenarios with two or more judged trials of the chance that two "
    "of its trials (drawn without replacement) disagree: 2·c·(n−c) / (n·(n−1)); "
    "flipped_scenarios: how many of them gave both verdicts.",
    "icc": "intraclass correlation of verdicts within scenario, one-way ANOVA estimator "
    "(Fleiss 1981; Ridout, Demétrio & Firth 1999), with a 95% percentile bootstrap interval "
    "over scenarios (2,000 resamples, seed 0); near 1: trials of a scenario agree, the "
    "scenarios differ; near 0: verdicts are noise around one rate.",
    "design_effect": "1 + (k−1)·ICC for k judged trials per scenario (Kish 1965), the ICC "
    "taken as 0 when negative: how much less k clustered trials tell than k independent ones.",
    "mde": "minimum detectable difference of success rate between two runs of this design "
    "(two-sided α 0.05, power 0.8): (z_0.975 + z_0.8)·√(2·p·(1−p)·DE / (S·k)) at this arm's "
    "accuracy p, S scenarios, k judged trials per scenario (their mean when unequal).",
    "mde_floor": "the detectable difference infinitely many trials would leave with these "
    "scenarios: (z_0.975 + z_0.8)·√(2·p·(1−p)·ICC / S).",
    "trials_needed": "the fewest trials per scenario whose MDE is at most the target "
    "(`--target-mde`); none when the target is at or below mde_floor (more scenarios are "
    "needed, not more trials).",
}
"""The noise floor's numbers by name, with the definition printed with them."""


class NoiseFloor(BaseModel):
    """The noise floor of one arm (see the module docstring; formulas in docs/noise.md)."""

    model_config = ConfigDict(extra="forbid")

    scenarios: int
    """Scenarios with at least one judged trial."""
    judged_trials: int
    not_judged: int
    """Sessions left out: not judged (infra error, no outcome, unjudgeable)."""
    trials_per_scenario: float | None
    """Judged trials per scenario (their mean when scenarios differ)."""
    accuracy: float | None
    flip_rate: float | None
    flip_scenarios: int = 0
    """Scenarios the flip rate rests on (two or more judged trials)."""
    flipped_scenarios: int = 0
    """Of those, the scenarios whose judged trials gave both verdicts."""
    icc: float | None
    icc_ci95: tuple[float, float] | None = None
    design_effect: float | None = None
    alpha: float = 0.05
    power: float = 0.8
    mde: float | None = None
    mde_floor: float | None = None
    target_mde: float = DEFAULT_TARGET_MDE
    trials_needed: int | None = None
    notes: list[str] = Field(default_factory=list)
    """Why a number is None (not estimable), or what it rests on when that needs saying."""


def _check_target(target: float) -> None:
    if not 0.0 < target < 1.0:
        raise StatisticsInputError(
            f"--target-mde must be a difference of success rate in (0, 1), got {target}"
        )


def noise_floor(
    counts: Counts,
    not_judged: int = 0,
    *,
    target_mde: float = DEFAULT_TARGET_MDE,
    alpha: float = 0.05,
    power: float = 0.8,
) -> NoiseFloor:
    """The noise floor of one arm from its per-scenario (judged trials, successes) counts;
    `not_judged`: the sessions already left out of them."""
    _check_target(target_mde)
    rows = {sid: nc for sid, nc in counts.items() if nc[0] > 0}
    found = NoiseFloor(
        scenarios=len(rows),
        judged_trials=sum(n for n, _ in rows.values()),
        not_judged=not_judged,
        trials_per_scenario=None,
        accuracy=None,
        flip_rate=None,
        icc=None,
        alpha=alpha,
        power=power,
        target_mde=target_mde,
    )
    notes = found.notes
    if not rows:
        notes.append("no session was judged: nothing is estimable")
        return found
    s, total = found.scenarios, found.judged_trials
    wins = sum(c for _, c in rows.values())
    k = found.trials_per_scenario = total / s
    p = found.accuracy = wins / total
    found.flip_rate, found.flip_scenarios = flip_rate(rows)
    found.flipped_scenarios = sum(1 for n, c in rows.values() if 0 < c < n)
    icc = found.icc = icc_anova(rows)
    interval = icc_bootstrap(rows) if icc is not None else None
    if interval is not None:
        found.icc_ci95 = (interval.low, interval.high)
    if found.flip_scenarios == 0:
        notes.append(
            "one judged trial per scenario: flip rate and ICC are not estimable "
            "(run two or more trials)"
        )
    elif icc is None:
        if wins in (0, total):
            notes.append("every judged trial has the same verdict: the ICC is not estimable")
        else:
            notes.append("fewer than two scenarios judged: the ICC is not estimable")
    elif interval is None:
        notes.append("ICC interval left out: over a tenth of the bootstrap resamples had no ICC")
    if k != int(k):
        notes.append(f"judged trials differ between scenarios: k is their mean, {k:.2f}")
    if wins in (0, total):
        notes.append("no verdict variance (accuracy 0 or 1): no detectable difference estimable")
        return found
    # With one trial per scenario the design effect is 1 whatever the ICC.
    rho = icc if icc is not None else (0.0 if k == 1 else None)
    if rho is None:
        return found
    found.design_effect = design_effect(k, rho)
    found.mde = min_detectable_difference(s, k, p, rho, alpha=alpha, power=power)
    if icc is None:
        notes.append("trials needed: not estimable without the ICC (run two or more trials)")
        return found
    found.mde_floor = difference_floor(s, p, icc, alpha=alpha, power=power)
    found.trials_needed = trials_needed(target_mde, s, p, icc, alpha=alpha, power=power)
    if found.trials_needed is None:
        notes.append(
            f"a difference of {target_mde:g} is not reachable with {s} scenarios: "
            f"with any number of trials the detectable difference stays above {found.mde_floor:.3f}"
        )
    return found


def noise_of_sessions(
    sessions: Sequence[Session], *, target_mde: float = DEFAULT_TARGET_MDE
) -> NoiseFloor:
    """The noise floor of one arm's sessions (give one arm's: arms are never pooled)."""
    counts, dropped = counts_of(trial_table(sessions))
    return noise_floor(counts, dropped, target_mde=target_mde)


def noise_of_report(report: MetricsReport, *, target_mde: float = DEFAULT_TARGET_MDE) -> NoiseFloor:
    """The noise floor of the arm `report` describes, from its per-scenario trial counts."""
    counts: Mapping[str, tuple[int, int]] = {
        f.scenario_id: (f.trials, f.successes) for f in report.flakiness
    }
    return noise_floor(counts, report.summary.not_judged, target_mde=target_mde)
