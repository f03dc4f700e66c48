"""Two runs side by side: paired differences on shared scenario × trial pairs.

A pair is the same scenario and trial (and arm, when the runs share arm names) judged in both
runs; a session not judged (infra error, no outcome, `Outcome.not_judged`) leaves its pair out.
A rerun and the run it reruns (a `score` of the same file) pair by transcript instead: a
rerun session names its transcript (`rerun_of`), a scored session is named by it, and each
rerun trial pairs with the transcript's one original verdict; where no transcript id is
shared, by the task the rerun names (`task`) against the scenario id. (Two reruns of one file
share their scenario ids, the transcript ids, and pair as any two runs.)

Each metric is a per-session 0/1 (success; reached the end on the gold path where survival
was computed), so the difference has a paired bootstrap interval and an exact McNemar p on
the discordant pairs, and the pairs needed to detect the observed difference at 80 % power
follow from the discordant share.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field

from ...errors import StatisticsInputError
from ...records import Session
from ...scoring._internal import SessionSurvival
from ...scoring.stats import Interval, paired_comparison
from ...scoring.stats._internal import PairedComparison


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

    @classmethod
    def of(cls, metric: str, pc: PairedComparison) -> MetricDifference:
        """`metric`'s row from a paired comparison, with the pairs needed to detect it."""
        return cls(
            metric=metric,
            pairs=pc.scenarios,
            rate_a=pc.rate_a,
            rate_b=pc.rate_b,
            only_a=pc.only_a,
            only_b=pc.only_b,
            difference=pc.difference,
            mcnemar_p=pc.mcnemar_p,
            pairs_needed=pc.pairs_needed(),
        )


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


def _meta(session: Session, name: str) -> str | None:
    value = session.metadata.get(name)
    return value if isinstance(value, str) and value else None


def _is_rerun(sessions: Sequence[Session]) -> bool:
    return bool(sessions) and all(_meta(s, "rerun_of") for s in sessions)


def _by_origin(sessions: Sequence[Session], field: str) -> dict[str, list[Session]]:
    """A rerun's sessions by the transcript (`rerun_of`) or task (`task`) they rerun."""
    out: dict[str, list[Session]] = {}
    for s in sessions:
        origin = _meta(s, field)
        if origin is not None:
            out.setdefault(origin, []).append(s)
    return out


def _rerun_keys(
    original: Sequence[Session], rerun: Sequence[Session]
) -> tuple[dict[Key, Session], dict[Key, Session], str] | None:
    """(original side, rerun side, what pairs them) when `rerun` reruns what `original` ran,
    or None. Each rerun trial pairs with the original verdict of its transcript (or task: the
    first original session of that scenario)."""
    for field, name in (("rerun_of", "transcript"), ("task", "task")):
        theirs = _by_origin(rerun, field)
        ours: dict[str, Session] = {}
        for s in original:
            ours.setdefault(s.session_id if field == "rerun_of" else s.scenario_id, s)
        shared = ours.keys() & theirs.keys()
        if not shared:
            continue
        a: dict[Key, Session] = {(o, str(s.trial)): ours[o] for o in shared for s in theirs[o]}
        # What one side ran alone stays in, as unpaired keys.
        a |= {(o, "0"): ours[o] for o in ours.keys() - shared}
        b: dict[Key, Session] = {(o, str(s.trial)): s for o, ss in theirs.items() for s in ss}
        return a, b, f"{name} × trial (original vs rerun)"
    return None


def _paired_keys(
    sessions_a: Sequence[Session], sessions_b: Sequence[Session]
) -> tuple[dict[Key, Session], dict[Key, Session], str]:
    # Two reruns of one file already share their scenario ids (the transcript ids).
    if _is_rerun(sessions_b) and not _is_rerun(sessions_a):
        found = _rerun_keys(sessions_a, sessions_b)
        if found is not None:
            return found
    elif _is_rerun(sessions_a) and not _is_rerun(sessions_b):
        found = _rerun_keys(sessions_b, sessions_a)
        if found is not None:
            b, a, how = found
            return a, b, how
    with_arm = bool({s.arm for s in sessions_a} & {s.arm for s in sessions_b})
    how = "arm × scenario × trial" if with_arm else "scenario × trial (arms differ)"
    return _keys(sessions_a, with_arm), _keys(sessions_b, with_arm), how


def _success(session: Session, _: SessionSurvival | None) -> bool | None:
    return session.verdict


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
    a, b, paired_on = _paired_keys(sessions_a, sessions_b)
    surv = survivals or {}
    out = Comparison(run_a=run_a, run_b=run_b, paired_on=paired_on)
    for name, judge in _METRICS.items():
        va = {"/".join(k): judge(s, surv.get((s.run_id, s.session_id))) for k, s in a.items()}
        vb = {"/".join(k): judge(s, surv.get((s.run_id, s.session_id))) for k, s in b.items()}
        try:
            pc = paired_comparison(va, vb, n_resamples=2000)
        except StatisticsInputError:
            out.skipped[name] = f"no pair ({paired_on}) has it in both runs"
            continue
        out.metrics.append(MetricDifference.of(name, pc))
        if name == "session_success":
            out.unpaired = len(pc.unpaired)
    return out
