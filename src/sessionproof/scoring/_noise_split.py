"""The verdict variance of one arm shared between the agent, the simulated user and the judge,
from runs of the same suite and seed that each vary one party's seed (`run --vary PARTY`),
and optionally a run that varies every seed (an ordinary run). The estimator is in
`stats._split`; docs/noise.md says how to run the design and read the shares."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from pydantic import BaseModel, ConfigDict, Field

from ..errors import StatisticsInputError
from ._summary import VerdictLike, verdict_of
from .stats._internal import Counts, counts_of, variance_shares, within_variance

ALL_SEEDS = "all"
"""The key of a run that varies every seed at once (an ordinary run)."""

JUDGE_NOTE = (
    "not varied: no run of `run --vary judge --judge MODEL` given (a rule judge takes no "
    "seed, its share is 0 by construction; a model judge's is measured by that run)"
)

SPLIT_DEFINITION = (
    "per party, T = the mean over scenarios of the within-scenario verdict variance "
    "c·(n−c)/(n·(n−1)) in a run where only that party's seed varies (the others fixed per "
    "scenario): the numerator of its total-effect Sobol index (Homma & Saltelli 1996; Jansen "
    "1999). share = T / ΣT over the parties measured, with a 95% bootstrap interval over the "
    "scenarios all runs judged twice or more; beside them V of a run varying every seed, and "
    "ΣT − V (interactions between parties, counted once per party they involve)."
)


class PartyVariance(BaseModel):
    """One party's within-scenario verdict variance, and its share."""

    model_config = ConfigDict(extra="forbid")

    run_id: str | None
    variance: float | None
    """T over the scenarios its run judged twice or more (None: not measured)."""
    scenarios: int = 0
    not_judged: int = 0
    """Sessions of its run left out (not judged)."""
    share: float | None = None
    share_ci95: tuple[float, float] | None = None
    note: str = ""


class VarianceSplit(BaseModel):
    """An arm's verdict variance shared between agent, simulated user and judge."""

    model_config = ConfigDict(extra="forbid")

    parties: dict[str, PartyVariance]
    all_seeds: PartyVariance | None = None
    """The run varying every seed at once, when one was given: its V."""
    interaction_excess: float | None = None
    """ΣT − V, when V is known."""
    scenarios: int = 0
    """Scenarios the shares rest on (judged twice or more in every party's run)."""
    definition: str = SPLIT_DEFINITION
    notes: list[str] = Field(default_factory=list)


def counts_by_arm(
    rows: Iterable[VerdictLike],
) -> dict[str, tuple[dict[str, tuple[int, int]], int]]:
    """Arm → (per-scenario judged trials and successes, sessions not judged) of a run's
    stored rows (or sessions)."""
    tables: dict[str, dict[str, list[tuple[int, bool | None]]]] = {}
    for row in rows:
        by_scenario = tables.setdefault(str(getattr(row, "arm", "baseline")), {})
        by_scenario.setdefault(row.scenario_id, []).append((row.trial, verdict_of(row)))
    return {
        arm: counts_of({sid: [v for _, v in sorted(t)] for sid, t in table.items()})
        for arm, table in tables.items()
    }


def variance_split(runs: Mapping[str, tuple[str, Counts, int]]) -> VarianceSplit:
    """The split from party → (run id, its per-scenario counts, its sessions not judged);
    the party `ALL_SEEDS`, when present, is the run that varies every seed."""
    parties: dict[str, PartyVariance] = {}
    measured: dict[str, Counts] = {}
    for name, (run_id, counts, dropped) in runs.items():
        value, n = within_variance(counts)
        item = PartyVariance(run_id=run_id, variance=value, scenarios=n, not_judged=dropped)
        if value is None:
            item.note = "no scenario judged twice or more: not estimable"
        if name == ALL_SEEDS:
            continue
        parties[name] = item
        if value is not None:
            measured[name] = counts
    everything = runs.get(ALL_SEEDS)
    all_seeds = None
    if everything is not None:
        value, n = within_variance(everything[1])
        all_seeds = PartyVariance(
            run_id=everything[0], variance=value, scenarios=n, not_judged=everything[2]
        )
    parties.setdefault("judge", PartyVariance(run_id=None, variance=None, note=JUDGE_NOTE))
    split = VarianceSplit(parties=parties, all_seeds=all_seeds)
    notes = split.notes
    if not measured:
        notes.append("no party's run has a scenario judged twice or more: no split")
        return split
    try:
        shares, intervals, common = variance_shares(measured)
    except StatisticsInputError as exc:
        notes.append(f"no split: {exc}")
        return split
    split.scenarios = len(common)
    for name, share in shares.items():
        parties[name].share = share
        if intervals is not None:
            parties[name].share_ci95 = intervals[name]
    if intervals is None:
        notes.append("share intervals left out: a tenth of the resamples had no variance")
    total = sum(parties[n].variance or 0.0 for n in measured)
    if all_seeds is not None and all_seeds.variance is not None:
        split.interaction_excess = total - all_seeds.variance
    if len(measured) == 1:
        notes.append(
            f"only {next(iter(measured))}'s variance was measured: its share is 1 of what "
            "was measured, not of the whole (run the other parties with --vary too)"
        )
    return split
