"""Pairing for the gate: the two sides' sessions matched by scenario × trial (one arm), the
check that they pair at all, and each round's paired differences."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

from pydantic import BaseModel, ConfigDict

from ..errors import ConfigError
from ..records import Session

Keyed = dict[tuple[str, int], Session]
"""(scenario id, trial) → the side's session there (of the gate's arm)."""

_SHOWN = 5


class ScenarioPairs(BaseModel):
    """One scenario's paired outcomes over the trials the gate used."""

    model_config = ConfigDict(extra="forbid")

    scenario_id: str
    pairs: int = 0
    """Judged pairs (both sessions judged)."""
    baseline_successes: int = 0
    candidate_successes: int = 0
    only_baseline: int = 0
    """Pairs the candidate lost (baseline succeeded, candidate failed)."""
    only_candidate: int = 0
    """Pairs the candidate won."""
    unjudged: int = 0
    """Pairs left out because a session of them was not judged (never counted either way)."""

    @property
    def lost(self) -> bool:
        """True when the candidate lost more pairs here than it won."""
        return self.only_baseline > self.only_candidate


def keyed(sessions: Iterable[Session], arm: str) -> Keyed:
    """`arm`'s sessions by (scenario, trial)."""
    return {(s.scenario_id, s.trial): s for s in sessions if s.arm == arm}


def _listed(ids: Sequence[str]) -> str:
    shown = ", ".join(ids[:_SHOWN])
    return shown + (f" and {len(ids) - _SHOWN} more" if len(ids) > _SHOWN else "")


def check_scenarios(
    baseline: Iterable[str], candidate: Iterable[str], what: str, arm: str = "baseline"
) -> list[str]:
    """The scenario ids both sides have, in order; `ConfigError` naming the ids each side
    lacks when they differ (`what` says which runs or suite)."""
    base, cand = sorted(set(baseline)), sorted(set(candidate))
    only_base = [s for s in base if s not in set(cand)]
    only_cand = [s for s in cand if s not in set(base)]
    if not base or not cand:
        side = "baseline" if not base else "candidate"
        raise ConfigError(f"{what}: the {side} has no session of the arm {arm!r} (see --arm)")
    if only_base or only_cand:
        parts = []
        if only_base:
            parts.append(f"{len(only_base)} only in the baseline ({_listed(only_base)})")
        if only_cand:
            parts.append(f"{len(only_cand)} only in the candidate ({_listed(only_cand)})")
        raise ConfigError(f"{what} do not pair on scenarios: {'; '.join(parts)}")
    return base


def rounds_held(side: Keyed, scenario_ids: Sequence[str]) -> int:
    """How many whole rounds a stored side has: trials 0..r−1 of every scenario."""
    r = 0
    while all((s, r) in side for s in scenario_ids):
        r += 1
    return r


def missing_first_round(side: Keyed, scenario_ids: Sequence[str]) -> list[str]:
    """The scenarios with no trial 0 on a side (what stops even one round)."""
    return [s for s in scenario_ids if (s, 0) not in side]


def round_differences(
    baseline: Keyed,
    candidate: Keyed,
    scenario_ids: Sequence[str],
    trial: int,
    tally: Mapping[str, ScenarioPairs],
) -> list[float]:
    """Trial `trial`'s paired differences (candidate − baseline, in scenario order), each
    scenario's `tally` updated; pairs with an unjudged session give none."""
    out: list[float] = []
    for sid in scenario_ids:
        b, c = baseline[(sid, trial)].verdict, candidate[(sid, trial)].verdict
        row = tally[sid]
        if b is None or c is None:
            row.unjudged += 1
            continue
        row.pairs += 1
        row.baseline_successes += int(b)
        row.candidate_successes += int(c)
        row.only_baseline += int(b and not c)
        row.only_candidate += int(c and not b)
        out.append(float(c) - float(b))
    return out


def drawn_differences(
    baseline: Keyed,
    candidate: Keyed,
    scenario_ids: Sequence[str],
    trial: int,
    drawn: Sequence[bool],
    tally: Mapping[str, ScenarioPairs],
) -> list[float]:
    """A thinned round's paired differences, one per scenario in order: NaN where the
    scenario was not drawn to run or its pair was not judged (`tally` updated as by
    `round_differences`)."""
    out: list[float] = []
    for sid, ran in zip(scenario_ids, drawn, strict=True):
        got = round_differences(baseline, candidate, [sid], trial, tally) if ran else []
        out.append(got[0] if got else math.nan)
    return out
