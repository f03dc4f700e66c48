"""Comparing arms of one run: per-arm summaries, error recovery, drift tolerance, and paired
differences against the first arm (same scenarios, same seeds)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..conditions import Condition, parse_arm
from ..records import Session
from ._detection_report import DETECTION_DEFINITIONS, FaultsReport, Writes, faults_report
from ._recovery import RECOVERY_DEFINITION, error_recovery
from ._summary import RunSummary, VerdictLike, summarize, verdict_of
from .stats import paired_comparison

ARM_DEFINITIONS: dict[str, str] = {
    "error_recovery_rate": RECOVERY_DEFINITION,
    **DETECTION_DEFINITIONS,
    "drift_tolerance": "session accuracy under a drift arm ÷ accuracy of the same scenarios and "
    "trials in the arm that differs only by having no drift (paired).",
    "paired": "each arm against the first on the same scenario × trial pairs (same seeds): "
    "difference of success rates with a paired bootstrap 95% CI, the exact McNemar p-value, and "
    "the pairs needed to detect that difference (α 0.05, power 0.8).",
}


class ArmReport(BaseModel):
    """One arm: its run summary plus recovery and drift numbers."""

    model_config = ConfigDict(extra="forbid")

    summary: RunSummary
    error_recovery_rate: float | None
    recovery_by_class: dict[str, Any] = Field(default_factory=dict)
    injected_failures: int = 0
    drift_tolerance: dict[str, Any] | None = None
    faults: FaultsReport | None = Field(default=None, exclude_if=lambda v: v is None)
    """Fault detection and recovery (`detection`, `recovery`) by kind, explicit vs implicit
    and transient vs permanent; left out for an arm that met no fault."""


class PairedRow(BaseModel):
    """Arm `b` against arm `a`."""

    model_config = ConfigDict(extra="forbid")

    a: str
    b: str
    pairs: int
    rate_a: float
    rate_b: float
    difference: float
    ci95: tuple[float, float]
    mcnemar_p: float
    only_a: int
    only_b: int
    pairs_needed: int | None
    """Pairs needed to detect the observed difference (two-sided α = 0.05, power 0.8, McNemar,
    Connor's formula with the observed discordant share); None when the rates are equal."""


class ArmsReport(BaseModel):
    """Every arm of a run and the paired comparisons."""

    model_config = ConfigDict(extra="forbid")

    arms: dict[str, ArmReport]
    paired: list[PairedRow]


def _verdicts(rows: Sequence[VerdictLike]) -> dict[str, bool | None]:
    # Pairs are scenario × trial: the session seed depends on both and not on the arm, so
    # the same pair met the same faults and drift choices in every arm.
    # Not judged (`verdict_of` None): the pair is left out of every rate and test.
    return {f"{r.scenario_id}#t{r.trial}": verdict_of(r) for r in rows}


def _rate(verdicts: Mapping[str, bool | None], keys: set[str]) -> float | None:
    judged = [verdicts[k] for k in keys if verdicts.get(k) is not None]
    return sum(bool(v) for v in judged) / len(judged) if judged else None


def _reference(condition: Condition, conditions: Mapping[str, Condition]) -> str | None:
    for name, other in conditions.items():
        if (
            other.drift is None
            and other.faults == condition.faults
            and other.guard == condition.guard
        ):
            return name
    return None


def compare_arms(
    rows_by_arm: Mapping[str, Sequence[VerdictLike]],
    sessions_by_arm: Mapping[str, Sequence[Session]],
    writes: Writes | None = None,
) -> ArmsReport:
    """Build the arms report; the first arm in `rows_by_arm` is the reference for `paired`.
    `writes`: a session's domain write tools, for the fault detection rules (None: told
    apart by name)."""
    names = list(rows_by_arm)
    # Only the arms' parts are compared: the files they name (verify=) are not read again.
    conditions = {n: parse_arm(n, read_files=False) for n in names}
    verdicts = {n: _verdicts(rows_by_arm[n]) for n in names}
    arms: dict[str, ArmReport] = {}
    for name in names:
        arm_sessions = list(sessions_by_arm.get(name, []))
        recovery = error_recovery(arm_sessions).summary()
        drift = None
        plan = conditions[name].drift
        if plan is not None:
            ref = _reference(conditions[name], conditions)
            tolerance = None
            if ref is not None:
                keys = {k for k in verdicts[name] if k in verdicts[ref]}
                drifted, clean = _rate(verdicts[name], keys), _rate(verdicts[ref], keys)
                tolerance = drifted / clean if drifted is not None and clean else None
            drift = {
                "kind": plan.kind.value,
                "at_turn": plan.at_turn,
                "reference": ref,
                "tolerance": tolerance,
            }
        arms[name] = ArmReport(
            summary=summarize(rows_by_arm[name]),
            error_recovery_rate=recovery["error_recovery_rate"],
            recovery_by_class=recovery["recovery_by_class"],
            injected_failures=recovery["injected_failures"],
            drift_tolerance=drift,
            faults=faults_report(arm_sessions, writes),
        )
    paired: list[PairedRow] = []
    base = names[0]
    for name in names[1:]:
        cmp = paired_comparison(verdicts[base], verdicts[name])
        paired.append(
            PairedRow(
                a=base,
                b=name,
                pairs=cmp.scenarios,
                rate_a=cmp.rate_a,
                rate_b=cmp.rate_b,
                difference=cmp.difference.estimate,
                ci95=(cmp.difference.low, cmp.difference.high),
                mcnemar_p=cmp.mcnemar_p,
                only_a=cmp.only_a,
                only_b=cmp.only_b,
                pairs_needed=cmp.pairs_needed(),
            )
        )
    return ArmsReport(arms=arms, paired=paired)
