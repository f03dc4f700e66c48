"""The report's noise-floor section: per run × arm, how much its verdicts move between trials
(flip rate, ICC), what difference its design can detect and the trials a 5-point difference
would need; then why any number is missing, and the definitions."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from ...scoring._internal import NOISE_DEFINITIONS, VarianceSplit, noise_of_report
from .._noise import noise_rows, split_rows
from ._data import ReportRun
from ._sections import section

SECTION_ID = "noise"


def noise_section(runs: Sequence[ReportRun]) -> str:
    """The noise floor of every run × arm (arms never pooled); '' when there is no arm."""
    head: list[str] = []
    rows: list[str] = []
    notes: list[str] = []
    for run in runs:
        for arm, report in run.arms.items():
            floor = noise_of_report(report)
            found = noise_rows(floor)
            head = ["run", "arm", *(name for name, _ in found)]
            cells = [run.run_id, arm, *(value for _, value in found)]
            rows.append("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in cells) + "</tr>")
            notes += [f"{run.run_id} · {arm}: {note}" for note in floor.notes]
    if not rows:
        return ""
    table = (
        '<table class="noise"><thead><tr>'
        + "".join(f"<th>{escape(h)}</th>" for h in head)
        + f"</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )
    said = "".join(f'<p class="missing">{escape(n)}</p>' for n in notes)
    said += "".join(_split(arm, split) for run in runs for arm, split in run.variance_split.items())
    defs = "".join(
        f'<p class="def">{escape(name)}: {escape(text)}</p>'
        for name, text in NOISE_DEFINITIONS.items()
    )
    return section(SECTION_ID, "Noise floor", table + said + defs)


def _split(arm: str, split: VarianceSplit) -> str:
    """One arm's variance split (the runs of one `run --vary` design): a table and its notes."""
    head = ("party", "run", "T (within variance)", "scenarios", "share")
    body = "".join(
        "<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>"
        for row in split_rows(split)
    )
    notes = "".join(f'<p class="missing">{escape(n)}</p>' for n in split.notes)
    return (
        f'<h3 class="split">verdict variance by party · arm {escape(arm)}</h3>'
        '<table class="noise split"><thead><tr>'
        + "".join(f"<th>{escape(h)}</th>" for h in head)
        + f"</tr></thead><tbody>{body}</tbody></table>{notes}"
        f'<p class="def">{escape(split.definition)}</p>'
    )
