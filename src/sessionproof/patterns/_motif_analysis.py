"""Every registered motif tested against failure, with the confounding control said.

For each motif: its presence per session (a session it cannot judge is left out of its
test), its counts in failed and passed sessions, the Mantel–Haenszel odds ratio with the
Robins–Breslow–Greenland 95% interval and the two-sided CMH p (`_adjust`), and
Benjamini–Hochberg q-values across the motifs tested. One `control` holds for all motifs of
a set, chosen once:

- `within-scenario`: scenarios as strata, when the scenarios with both a failed and a passed
  session hold at least half of the sessions (repeated trials);
- `task-signature`: strata from the task signature read from each trace (`_signature`), when
  scenarios do not repeat (production traces, one trial per task);
- `none`: a single stratum — the plain odds ratio, **exploratory** (confounded by task) —
  only when neither gives a stratum with both outcomes.

A motif present in no session, or in every one it judged, has nothing to contrast: it is
listed with its counts and without an effect.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from ._adjust import Table, bh, informative, mantel_haenszel
from ._motif_view import SessionView
from ._motifs import Motif, MotifContext, motifs
from ._signature import signature, strata

Control = Literal["within-scenario", "task-signature", "none"]


class MotifResult(BaseModel):
    """One motif's test."""

    model_config = ConfigDict(extra="forbid")

    name: str
    failed: int
    """Failed sessions showing the motif."""
    passed: int
    """Passed sessions showing the motif."""
    failed_judged: int
    """Failed sessions the motif could judge (present or absent)."""
    passed_judged: int
    odds_ratio: float | None = None
    ci: list[float] | None = None
    """95% interval of the odds ratio [low, high] (Robins–Breslow–Greenland)."""
    p_value: float | None = None
    q_value: float | None = None
    """Benjamini–Hochberg across the motifs with a p-value."""
    control: Control
    exploratory: bool = False
    """True when `control` is none: the effect is confounded by task."""
    sessions_used: int = 0
    """Sessions in strata with both outcomes (those the effect rests on)."""
    strata_used: int = 0
    corrected: bool = False
    """True when the Haldane–Anscombe 0.5 was added to every cell (an empty cell)."""
    covers_failures: float = 0.0
    """Share of the judged failed sessions showing it."""
    why: str
    advice: str
    investment: str
    examples: list[str] = Field(default_factory=list)
    """Up to three failed sessions showing it."""
    note: str = ""


class MotifAnalysis(BaseModel):
    """The motifs of one arm's sessions."""

    model_config = ConfigDict(extra="forbid")

    control: Control = "none"
    control_detail: str = ""
    motifs: list[MotifResult] = Field(default_factory=list)
    not_applicable: dict[str, str] = Field(default_factory=dict)
    """Motifs that do not apply to this set, with the reason (never tested)."""
    note: str = ""
    """Which motifs are significant, or why none is (the power the data had)."""
    failed_ids: dict[str, list[str]] = Field(default_factory=dict, exclude=True)
    """Per motif, every failed session showing it (for the failures advice covers)."""


def choose_control(
    views: Sequence[SessionView],
    scenario_ids: Sequence[str],
    failed: Sequence[bool],
    context: MotifContext,
) -> tuple[Control, list[str], str]:
    """(control, stratum per session, a sentence saying what it is) as the module
    docstring says."""
    by: dict[str, set[bool]] = {}
    for s, f in zip(scenario_ids, failed, strict=True):
        by.setdefault(s, set()).add(f)
    both = [s for s in scenario_ids if len(by[s]) == 2]
    if len(both) * 2 >= len(scenario_ids) and both:
        n = len({s for s in both})
        return (
            "within-scenario",
            list(scenario_ids),
            f"within scenario: {n} scenario(s) with both outcomes hold {len(both)} sessions",
        )
    made = strata([signature(v, context.write_tools) for v in views], failed)
    if made is not None:
        keys, kept = made
        return (
            "task-signature",
            keys,
            f"task-signature strata over {', '.join(kept)} (scenarios with both outcomes hold "
            f"{len(both)} of {len(scenario_ids)} sessions)",
        )
    return (
        "none",
        ["all"] * len(views),
        "none: no scenario or task signature has both outcomes; unadjusted, exploratory",
    )


def _tables(
    present: Sequence[bool | None], failed: Sequence[bool], keys: Sequence[str]
) -> list[Table]:
    cells: dict[str, list[int]] = {}
    for x, f, k in zip(present, failed, keys, strict=True):
        if x is None:
            continue
        cell = cells.setdefault(k, [0, 0, 0, 0])
        cell[(0 if x else 2) + (0 if f else 1)] += 1
    return [(c[0], c[1], c[2], c[3]) for c in cells.values()]


def motif_effect(
    m: Motif,
    present: Sequence[bool | None],
    failed: Sequence[bool],
    keys: Sequence[str],
    control: Control,
) -> MotifResult:
    """One motif's counts and adjusted effect over the sessions (`keys`: their strata)."""
    judged = [(x, f) for x, f in zip(present, failed, strict=True) if x is not None]
    n_failed = sum(f for _, f in judged)
    result = MotifResult(
        name=m.name,
        failed=sum(bool(x) and f for x, f in judged),
        passed=sum(bool(x) and not f for x, f in judged),
        failed_judged=n_failed,
        passed_judged=len(judged) - n_failed,
        control=control,
        exploratory=control == "none",
        why=m.why,
        advice=m.advice,
        investment=m.investment,
    )
    result.covers_failures = result.failed / n_failed if n_failed else 0.0
    if result.failed + result.passed == 0:
        result.note = "present in no session: nothing to test"
        return result
    tables = _tables(present, failed, keys)
    effect = mantel_haenszel(tables)
    result.sessions_used, result.strata_used = effect.sessions_used, effect.strata_used
    result.corrected = effect.corrected
    result.p_value = effect.p_value
    if effect.odds_ratio is not None and effect.ci is not None:
        result.odds_ratio = effect.odds_ratio
        result.ci = [effect.ci[0], effect.ci[1]]
    elif not informative(tables):
        result.note = "no stratum has both outcomes among the sessions it judged"
    else:
        result.note = "present in every session (or none) of the strata used: no contrast"
    return result


def analyse(
    views: Sequence[SessionView],
    scenario_ids: Sequence[str],
    failed: Sequence[bool],
    context: MotifContext | None = None,
    names: Sequence[str] | None = None,
    unadjusted: bool = False,
) -> MotifAnalysis:
    """Every motif (default: all registered) tested over these judged sessions;
    `unadjusted` forces the `none` control (to show what adjusting changes)."""
    ctx = context or MotifContext()
    out = MotifAnalysis()
    if not views:
        out.control_detail = "no judged sessions"
        return out
    if unadjusted:
        control: Control = "none"
        keys, detail = ["all"] * len(views), "none (asked for): unadjusted, exploratory"
    else:
        control, keys, detail = choose_control(views, scenario_ids, failed, ctx)
    out.control, out.control_detail = control, detail
    for m in motifs(names):
        reason = m.not_applicable(views, ctx)
        if reason is not None:
            out.not_applicable[m.name] = reason
            continue
        present = [m.present(v, ctx) for v in views]
        result = motif_effect(m, present, failed, keys, control)
        ids = [v.session_id for v, x, f in zip(views, present, failed, strict=True) if x and f]
        out.failed_ids[m.name] = ids
        result.examples = ids[:3]
        out.motifs.append(result)
    tested = [r for r in out.motifs if r.p_value is not None]
    for r, q in zip(tested, bh([r.p_value or 1.0 for r in tested]), strict=True):
        r.q_value = q
    out.motifs.sort(key=lambda r: (r.q_value is None, r.q_value or 1.0, -r.failed))
    out.note = _summary(out, len(failed), sum(failed))
    return out


def _summary(out: MotifAnalysis, sessions: int, failures: int, alpha: float = 0.05) -> str:
    """One sentence: the significant motifs, or why none is."""
    with_ci = [r for r in out.motifs if r.ci is not None]
    if not with_ci:
        return "no motif could be tested: none has a contrast in a stratum with both outcomes"
    hits = [r.name for r in with_ci if r.q_value is not None and r.q_value < alpha]
    if hits:
        return f"significant at q < {alpha} ({out.control}): {', '.join(hits)}"
    used = max(r.sessions_used for r in with_ci)
    wide = max(with_ci, key=lambda r: (r.ci or [1.0, 1.0])[1] / max((r.ci or [1.0])[0], 1e-12))
    lo, hi = wide.ci or [0.0, 0.0]
    return (
        f"no motif is significant at q < {alpha} ({out.control}): each effect rests on at most "
        f"{used} of {sessions} sessions ({failures} failed in all); intervals as wide as "
        f"{wide.name}'s [{lo:.2f}, {hi:.2f}] mean the data cannot tell a large effect from "
        "none (too little power), not that the motifs are harmless"
    )


def prefix_features(
    views: Sequence[SessionView], names: Sequence[str], context: MotifContext
) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """For the early-warning model: (rows, step) → whether each named motif is present in
    `views[row]` as it stood at that step (a motif that cannot tell counts as absent)."""
    chosen = motifs(names)

    def features(rows: np.ndarray, steps: np.ndarray) -> np.ndarray:
        out = np.zeros((len(rows), len(chosen)), dtype=np.float64)
        for i, (row, step) in enumerate(zip(rows.tolist(), steps.tolist(), strict=True)):
            view = views[row].prefix(step)
            for j, m in enumerate(chosen):
                out[i, j] = 1.0 if m.present(view, context) else 0.0
        return out

    return features
