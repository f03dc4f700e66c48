"""pass^k, pass@k and flakiness from a table of trial verdicts per scenario.

The infra-error rule, one place for every statistic here: a trial whose verdict is `None`
(the session ended in `infra_error`, or was never judged) is not a trial of the agent. It is
dropped from n and counted in `infra_trials`. A scenario left with fewer than k judged trials
cannot give C(n, k) and is left out of that k's mean, named in `excluded`, never counted as a
failure or a success.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field

from ...errors import StatisticsInputError
from ...records import Session

TrialTable = Mapping[str, Sequence[bool | None]]
"""Scenario id → verdict of each trial in trial order: True, False, or None (not judged)."""


class PassK(BaseModel):
    """pass^k or pass@k over a set of scenarios."""

    model_config = ConfigDict(extra="forbid")

    k: int
    value: float | None
    """Mean over the included scenarios; None when no scenario has k judged trials."""
    per_scenario: dict[str, float] = Field(default_factory=dict)
    """Each included scenario's own estimate (feed these to `bootstrap_ci`)."""
    excluded: list[str] = Field(default_factory=list)
    """Scenarios with fewer than k judged trials."""
    infra_trials: int = 0
    """Trials dropped because their verdict was None."""


def trial_table(sessions: Iterable[Session]) -> dict[str, list[bool | None]]:
    """Group sessions into a `TrialTable`, trials ordered by their number.

    A session that was not judged (`Session.verdict` None: it ended in infra_error, carries
    no outcome, or its outcome could not be judged) is recorded as None.
    """
    rows: dict[str, list[tuple[int, bool | None]]] = {}
    for session in sessions:
        rows.setdefault(session.scenario_id, []).append((session.trial, session.verdict))
    return {sid: [v for _, v in sorted(trials, key=lambda t: t[0])] for sid, trials in rows.items()}


def _counts(table: TrialTable) -> tuple[dict[str, tuple[int, int]], int]:
    counts: dict[str, tuple[int, int]] = {}
    dropped = 0
    for sid, trials in table.items():
        judged = [t for t in trials if t is not None]
        dropped += len(trials) - len(judged)
        counts[sid] = (len(judged), sum(judged))
    return counts, dropped


def _over_scenarios(table: TrialTable, k: int, per: str) -> PassK:
    if k < 1:
        raise StatisticsInputError(f"k must be at least 1, got {k}")
    counts, dropped = _counts(table)
    result = PassK(k=k, value=None, infra_trials=dropped)
    for sid, (n, c) in counts.items():
        if n < k:
            result.excluded.append(sid)
            continue
        ways = math.comb(n, k)
        if per == "all":
            result.per_scenario[sid] = math.comb(c, k) / ways
        else:
            result.per_scenario[sid] = 1.0 - math.comb(n - c, k) / ways
    if result.per_scenario:
        result.value = math.fsum(result.per_scenario.values()) / len(result.per_scenario)
    return result


def pass_hat_k(table: TrialTable, k: int) -> PassK:
    """pass^k (tau-bench): mean over scenarios of C(c, k) / C(n, k), the chance that k trials
    drawn without replacement all succeed. Infra-error rule: see the module docstring."""
    return _over_scenarios(table, k, "all")


def pass_at_k(table: TrialTable, k: int) -> PassK:
    """pass@k: mean over scenarios of 1 − C(n − c, k) / C(n, k), the chance that at least one
    of k trials drawn without replacement succeeds. Infra-error rule: see the module docstring."""
    return _over_scenarios(table, k, "any")


class Flakiness(BaseModel):
    """How one scenario's verdict moves across trials."""

    model_config = ConfigDict(extra="forbid")

    scenario_id: str
    trials: int
    """Judged trials (None verdicts dropped)."""
    successes: int
    flips: int
    """Times the verdict changed from one judged trial to the next."""
    flip_rate: float | None
    """flips / (trials − 1); None with fewer than two judged trials."""
    flaky: bool
    """Both a success and a failure were seen."""


def flakiness(table: TrialTable) -> list[Flakiness]:
    """Per scenario, how often its verdict flips across trials (in trial order).

    A scenario that always passes or always fails is stable (flips 0); one that alternates
    has flip_rate 1. Infra-error trials are skipped, so a flip is counted across them.
    """
    found = []
    for sid, trials in table.items():
        judged = [t for t in trials if t is not None]
        flips = sum(1 for a, b in itertools.pairwise(judged) if a != b)
        found.append(
            Flakiness(
                scenario_id=sid,
                trials=len(judged),
                successes=sum(judged),
                flips=flips,
                flip_rate=flips / (len(judged) - 1) if len(judged) > 1 else None,
                flaky=0 < sum(judged) < len(judged),
            )
        )
    return found
