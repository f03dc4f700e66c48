"""Advice from motifs: the engineering change each motif points to, ranked by the failures it
covers, with what a guarded arm measured.

Motifs that raise the odds of failure (odds ratio above 1) are grouped by their
`investment` (confirm before write, read before write, ground arguments, back off and
re-plan, ...). A group is **supported** when one of its motifs has q below `alpha` and an
interval above 1; otherwise it is a candidate, said as such with its best q. Supported groups
come first, then by the failed sessions their motifs cover together (a session counted once).
When the run has guarded arms, each motif's failure rate there is set beside the mined arm's
(how many sessions showing it failed in each): the guard's measured effect on it.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field

from ._motif_analysis import MotifAnalysis, MotifResult


class MotifAdvice(BaseModel):
    """One engineering change, the motifs that point to it and the failures they cover."""

    model_config = ConfigDict(extra="forbid")

    investment: str
    advice: str
    motifs: list[str] = Field(default_factory=list)
    failures: int
    covers_failures: float
    supported: bool
    """True when one of its motifs has q < alpha and a 95% interval above 1."""
    evidence: str
    guarded: list[str] = Field(default_factory=list)
    """Per guarded arm and motif: its failure rate there beside the mined arm's."""


def _rate(r: MotifResult) -> str:
    n = r.failed + r.passed
    return f"{r.failed}/{n} failed"


def _supported(r: MotifResult, alpha: float) -> bool:
    return r.q_value is not None and r.q_value < alpha and r.ci is not None and r.ci[0] > 1


def motif_advice(
    analysis: MotifAnalysis,
    failures: int,
    guarded: Mapping[str, MotifAnalysis] | None = None,
    alpha: float = 0.05,
) -> list[MotifAdvice]:
    """The changes the motifs of `analysis` point to (rules: the module docstring);
    `failures`: the judged failed sessions of the mined arm."""
    groups: dict[str, list[MotifResult]] = {}
    for r in analysis.motifs:
        if r.odds_ratio is not None and r.odds_ratio > 1:
            groups.setdefault(r.investment, []).append(r)
    out: list[MotifAdvice] = []
    for investment, results in groups.items():
        covered = {sid for r in results for sid in analysis.failed_ids.get(r.name, [])}
        best = min(results, key=lambda r: r.q_value if r.q_value is not None else 1.0)
        supported = any(_supported(r, alpha) for r in results)
        ci = best.ci or [float("nan"), float("nan")]
        evidence = (
            f"{best.name}: OR {best.odds_ratio:.2f} [{ci[0]:.2f}, {ci[1]:.2f}], "
            f"q {best.q_value if best.q_value is not None else float('nan'):.2g} "
            f"({best.control})"
        )
        if not supported:
            evidence = (
                f"candidate, not established (q ≥ {alpha} or interval includes 1): " + evidence
            )
        notes: list[str] = []
        for arm, there in (guarded or {}).items():
            by_name = {x.name: x for x in there.motifs}
            for r in results:
                g = by_name.get(r.name)
                if g is not None and g.failed + g.passed:
                    notes.append(f"guarded arm {arm!r}: {r.name} {_rate(g)} (here {_rate(r)})")
                elif g is not None:
                    notes.append(f"guarded arm {arm!r}: {r.name} seen in no session")
        out.append(
            MotifAdvice(
                investment=investment,
                advice=results[0].advice,
                motifs=[r.name for r in results],
                failures=len(covered),
                covers_failures=len(covered) / failures if failures else 0.0,
                supported=supported,
                evidence=evidence,
                guarded=notes,
            )
        )
    return sorted(out, key=lambda a: (not a.supported, -a.failures))
