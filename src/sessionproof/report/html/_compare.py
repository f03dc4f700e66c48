"""Two runs side by side: paired differences on shared scenario × trial pairs.

A pair is the same scenario and trial (and arm, when the runs share arm names) judged in both
runs; infra errors are not judged and leave their pair out. Each metric is a per-session 0/1
(success; reached the end on the gold path where survival was computed), so the difference
has a paired bootstrap interval and an exact McNemar p on the discordant pairs, and the pairs
needed to detect the observed difference at 80 % power follow from the discordant share.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field

from ...errors import StatisticsInputError
from ...records import Session
from ...scoring import SessionSurvival
from ...scoring.stats import Interval, paired_comparison, scenarios_needed


class MetricDifference(BaseModel):
    """One metric of run B against run A on the shared pairs."""

    model_config = ConfigDict(extra="forbid")

    metric: str
    pairs: int
    rate_a: float
    rate_b: float
    only_a: int
    only_b: int
    difference: Interval
    """rate_b − rate_a with a paired bootstrap 95 % interval."""
    mcnemar_p: float
    pairs_needed: int | None
    """Pairs needed to detect the observed difference (α 0.05, power 0.8); None when the
    rates are equal."""


class Comparison(BaseModel):
    """`sessionproof compare RUN_A RUN_B`: every paired metric, and what was left out."""

    model_config = ConfigDict(extra="forbid")

    run_a: str
    run_b: str
    paired_on: str
    metrics: list[MetricDifference] = Field(default_factory=list)
    unpaired: int = 0
    """Keys seen in one run only, or not judged in one of them."""
    skipped: dict[str, str] = Field(default_factory=dict)


Key = tuple[str, ...]


def _keys(sessions: Sequence[Session], with_arm: bool) -> dict[Key, Session]:
    out: dict[Key, Session] = {}
    for s in sessions:
        key = (s.arm, s.scenario_id, str(s.trial)) if with_arm else (s.scenario_id, str(s.trial))
        out.setdefault(key, s)
    return out


def _success(session: Session, _: SessionSurvival | None) -> bool | None:
    if session.infra_error or session.outcome is None:
        return None
    return session.outcome.success


def _on_path(session: Session, survival: SessionSurvival | None) -> bool | None:
    if survival is None:
        return None
    return survival.divergence is None


_METRICS: dict[str, Callable[[Session, SessionSurvival | None], bool | None]] = {
    "session_success": _success,
    "on_gold_path": _on_path,
}


def compare_sessions(
    run_a: str,
    sessions_a: Sequence[Session],
    run_b: str,
    sessions_b: Sequence[Session],
    survivals: Mapping[tuple[str, str], SessionSurvival] | None = None,
) -> Comparison:
    """Run B against run A on their shared pairs (see the module docstring). `survivals`
    is keyed by (run id, session id): two runs of one suite share their session ids."""
    with_arm = bool({s.arm for s in sessions_a} & {s.arm for s in sessions_b})
    a, b = _keys(sessions_a, with_arm), _keys(sessions_b, with_arm)
    surv = survivals or {}
    out = Comparison(
        run_a=run_a,
        run_b=run_b,
        paired_on="arm × scenario × trial" if with_arm else "scenario × trial (arms differ)",
    )
    for name, judge in _METRICS.items():
        va = {"/".join(k): judge(s, surv.get((s.run_id, s.session_id))) for k, s in a.items()}
        vb = {"/".join(k): judge(s, surv.get((s.run_id, s.session_id))) for k, s in b.items()}
        try:
            pc = paired_comparison(va, vb, n_resamples=2000)
        except StatisticsInputError as exc:
            out.skipped[name] = str(exc)
            continue
        needed: int | None = None
        if pc.rate_a != pc.rate_b:
            needed = scenarios_needed(
                pc.rate_a, pc.rate_b, discordant=(pc.only_a + pc.only_b) / pc.scenarios
            )
        out.metrics.append(
            MetricDifference(
                metric=name,
                pairs=pc.scenarios,
                rate_a=pc.rate_a,
                rate_b=pc.rate_b,
                only_a=pc.only_a,
                only_b=pc.only_b,
                difference=pc.difference,
                mcnemar_p=pc.mcnemar_p,
                pairs_needed=needed,
            )
        )
        if name == "session_success":
            out.unpaired = len(pc.unpaired)
    return out
