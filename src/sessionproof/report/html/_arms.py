"""The A/B question: each arm's accuracy with its interval, faults and recovery, and every arm
against the first on the same scenario × trial pairs.

Accuracies are counted as `_figures` counts them (the not-judged rule); a pair is a scenario ×
trial judged in both arms.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from ...errors import StatisticsInputError
from ...scoring import compare_arms
from ...scoring._internal import ARM_DEFINITIONS, PairedRow
from .._format import pct
from ._data import ReportRun
from ._figures import NONE, arm_figures, not_judged_text
from ._sections import _missing, _table, section


def _paired(run: ReportRun) -> tuple[list[PairedRow], dict[str, str]]:
    """Each arm against the first, on the pairs both judged."""
    names = list(run.arms)
    by_arm = {a: [s for s in run.sessions if s.arm == a] for a in names}
    judged = {a: [s for s in ss if s.judged] for a, ss in by_arm.items()}
    rows: list[PairedRow] = []
    skipped: dict[str, str] = {}
    for name in names[1:]:
        pair = [names[0], name]
        try:
            report = compare_arms({a: judged[a] for a in pair}, {a: by_arm[a] for a in pair})
        except StatisticsInputError as exc:
            skipped[name] = str(exc)
            continue
        rows += report.paired
    return rows, skipped


def _paired_rows(rows: Sequence[PairedRow]) -> list[list[str]]:
    return [
        [
            r.b,
            r.a,
            str(r.pairs),
            pct(r.rate_a),
            pct(r.rate_b),
            f"{r.difference:+.1%}",
            f"{r.ci95[0]:+.1%} … {r.ci95[1]:+.1%}",
            f"{r.mcnemar_p:.3g}",
            f"{r.only_a} / {r.only_b}",
            "n/a" if r.pairs_needed is None else str(r.pairs_needed),
        ]
        for r in rows
    ]


def arms_section(runs: Sequence[ReportRun]) -> str:
    """Per arm: accuracy and interval, injected faults, recovery, not judged; then each arm
    against the first (difference, 95% CI, McNemar p, pairs). "" when no run has two arms."""
    multi = [r for r in runs if len(r.arms) > 1]
    if not multi:
        return ""
    body = ""
    for run in multi:
        rows = []
        for arm, metrics in run.arms.items():
            f = arm_figures(run, arm, faults=True)
            rec = metrics.error_recovery
            rate = rec.get("error_recovery_rate")
            rows.append(
                [
                    arm,
                    str(f.sessions),
                    f"{pct(f.accuracy) if f.judged else NONE} ({f.passed}/{f.judged})",
                    f.interval,
                    str(f.faults)
                    + (f" (+{f.user_faults} on the user's tools)" if f.user_faults else ""),
                    f"{pct(rate if isinstance(rate, float) else None)} "
                    f"({rec.get('recovered', 0)}/{rec.get('failures', 0)})",
                    not_judged_text(f),
                ]
            )
        head = ["arm", "sessions", "accuracy", "Wilson 95%", "faults injected", "recovery"]
        body += f"<h3>{escape(run.model)} {escape(run.run_id)}: arms</h3>"
        body += _table([*head, "not judged"], rows, cls="arms")
        paired, skipped = _paired(run)
        body += f"<h4>each arm against {escape(next(iter(run.arms)))}</h4>"
        if paired:
            body += _table(
                [
                    "arm B",
                    "arm A",
                    "pairs",
                    "A",
                    "B",
                    "B − A",
                    "95% CI",
                    "McNemar p",
                    "only A / only B",
                    "pairs needed",
                ],
                _paired_rows(paired),
                cls="paired",
            )
        for name, why in skipped.items():
            body += _missing(f"{name} against the first arm", why)
    body += f'<p class="def">paired: {escape(ARM_DEFINITIONS["paired"])}</p>'
    return section(SECTION_ID, "Arms: A/B", body)


SECTION_ID = "arms"
