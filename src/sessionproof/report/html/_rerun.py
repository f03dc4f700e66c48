"""A rerun's report: each transcript's original verdict beside its reruns, and rerun against
original over transcript × trial pairs (each trial paired with the one original verdict; a
side that was not judged leaves its pair out), as `sessionproof rerun` compares them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape

from ...errors import StatisticsInputError
from ...records import Session
from ...scoring.stats import paired_comparison
from .._format import pct
from ._compare import Comparison, MetricDifference
from ._data import Original, ReportRun, verdict
from ._sections import _missing, _table, comparison_body, section

SECTION_ID = "rerun"


def _word(v: bool | None) -> str:
    return "not judged" if v is None else ("pass" if v else "fail")


def rerun_comparison(
    run_id: str, sessions: Sequence[Session], originals: Mapping[str, Original]
) -> Comparison:
    """Rerun (B) against original (A) over transcript × trial pairs."""
    a: dict[str, bool | None] = {}
    b: dict[str, bool | None] = {}
    for s in sessions:
        o = originals.get(s.scenario_id)
        key = f"{o.transcript if o else s.scenario_id}#t{s.trial}"
        a[key], b[key] = (o.verdict if o else None), s.verdict
    out = Comparison(run_a="original", run_b=run_id, paired_on="transcript × trial")
    try:
        pc = paired_comparison(a, b, n_resamples=2000)
    except StatisticsInputError as exc:
        out.skipped["session_success"] = str(exc)
        out.unpaired = len(a)
        return out
    out.metrics.append(MetricDifference.of("session_success", pc))
    out.unpaired = len(pc.unpaired)
    return out


def rerun_section(runs: Sequence[ReportRun]) -> str:
    """Original vs rerun for every rerun run whose transcripts could be read again; "" when
    no run is a rerun."""
    reruns = [r for r in runs if r.command == "rerun"]
    if not reruns:
        return ""
    body = ""
    for run in reruns:
        body += f"<h3>{escape(run.model)} {escape(run.run_id)} against the originals</h3>"
        if run.originals is None:
            body += _missing("original vs rerun", run.originals_note)
            continue
        body += comparison_body(rerun_comparison(run.run_id, run.sessions, run.originals))
        by_scenario: dict[str, list[Session]] = {}
        for s in run.sessions:
            by_scenario.setdefault(s.scenario_id, []).append(s)
        rows = []
        for sid, mine in by_scenario.items():
            o = run.originals.get(sid)
            judged = [s.verdict for s in mine if s.verdict is not None]
            rate = pct(sum(judged) / len(judged)) if judged else "–"
            rows.append(
                [
                    o.transcript if o else sid,
                    (o.task or "") if o else "",
                    _word(o.verdict) if o else "not judged",
                    " ".join(verdict(s) for s in sorted(mine, key=lambda s: s.trial)),
                    f"{rate} ({sum(judged)}/{len(judged)})",
                ]
            )
        head = ["transcript", "task", "original", "rerun trials", "rerun accuracy"]
        body += "<h4>per transcript</h4>" + _table(head, rows, cls="reruns")
    return section(SECTION_ID, "Original vs rerun", body)
