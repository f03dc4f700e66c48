"""The report's section of registered metrics (a plug-in's, a user's): one row per run × arm
× metric, each with its interval, its count and the sessions left out, then the definitions."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from .._metrics import value_text
from ._data import ReportRun
from ._sections import section

SECTION_ID = "metrics"


def has_metrics(runs: Sequence[ReportRun]) -> bool:
    """Whether any arm of `runs` carries a registered metric (else the section is left out)."""
    return any(m.metrics for run in runs for m in run.arms.values())


def metrics_section(runs: Sequence[ReportRun]) -> str:
    """Every registered metric of every run × arm (arms never pooled); '' when none."""
    if not has_metrics(runs):
        return ""
    rows: list[str] = []
    definitions: dict[str, str] = {}
    for run in runs:
        for arm, report in run.arms.items():
            for name, value in report.metrics.items():
                definitions.setdefault(name, value.definition)
                cells = (run.run_id, arm, name, value_text(value))
                rows.append("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in cells) + "</tr>")
    head = "".join(f"<th>{h}</th>" for h in ("run", "arm", "metric", "value"))
    table = (
        f'<table class="metrics"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )
    defs = "".join(
        f'<p class="def">{escape(name)}: {escape(text)}</p>' for name, text in definitions.items()
    )
    return section(SECTION_ID, "Metrics", table + defs)
