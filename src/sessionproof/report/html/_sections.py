"""The report's sections as HTML fragments; every value from a run passes `html.escape`.

A section whose data the runs do not hold says "not measured in this run" (and why, when the
metrics name a reason) instead of disappearing, so an absent picture is never mistaken for a
clean one.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from html import escape
from urllib.parse import quote

from ...patterns import PatternsReport
from ...records._internal import DriftAppliedEvent
from .._format import pct
from ._compare import Comparison
from ._data import ReportRun, session_key, verdict
from ._figures import arm_figures, not_judged_text, pass_k_text
from ._svg import Series, bar_plot, grouped_bars, line_plot

NOT_MEASURED = "not measured in this run"
_SHOWN = {"infra": "infra error (not judged)", "unjudged": "not judged", "none": "no verdict"}


def _table(head: Sequence[str], rows: Iterable[Sequence[str]], cls: str = "") -> str:
    h = "".join(f"<th>{escape(c)}</th>" for c in head)
    body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in r) + "</tr>" for r in rows)
    attr = f' class="{escape(cls, quote=True)}"' if cls else ""
    return f"<table{attr}><thead><tr>{h}</tr></thead><tbody>{body}</tbody></table>"


def _missing(what: str, why: str = "") -> str:
    extra = f": {escape(why)}" if why else ""
    return f'<p class="missing">{escape(what)} — {NOT_MEASURED}{extra}</p>'


def section(sid: str, title: str, body: str) -> str:
    """A titled section the browser test and the table of contents find by id."""
    return f'<section id="{sid}" class="sec"><h2>{escape(title)}</h2>{body}</section>'


def _label(run: ReportRun, arm: str) -> str:
    return f"{run.model} {run.run_id[-6:]} · {arm}" if run.model else f"{run.run_id} · {arm}"


def headline(runs: Sequence[ReportRun]) -> str:
    """Per run × arm: accuracy over judged sessions with its interval, pass^k / pass@k, and
    the sessions not judged, counted apart with their reasons."""
    rows = []
    for run in runs:
        for arm in run.arms:
            f = arm_figures(run, arm)
            rows.append(
                [
                    run.run_id,
                    run.model,
                    arm,
                    str(f.sessions),
                    f"{f.passed}/{f.judged}",
                    f.accuracy_text,
                    f.interval,
                    pass_k_text(f),
                    not_judged_text(f),
                ]
            )
    head = [
        "run",
        "model",
        "arm",
        "sessions",
        "passed / judged",
        "accuracy",
        "Wilson 95%",
        "pass^k · pass@k",
        "not judged",
    ]
    return section("headline", "Headline", _table(head, rows, cls="headline"))


def survival(runs: Sequence[ReportRun]) -> str:
    """S(d) by decision depth and success by gold writes needed, one line per run × arm."""
    curves: list[Series] = []
    needs: list[Series] = []
    why = ""
    for run in runs:
        for arm, m in run.arms.items():
            sv = m.survival
            if sv is None or not sv.curve:
                why = why or m.skipped.get("survival_by_depth", "no scenario with write tools")
                continue
            curves.append(Series(_label(run, arm), [(p.depth, p.survival) for p in sv.curve]))
            pts = [(b.needed, b.success_rate) for b in sv.success_by_gold_writes]
            needs.append(Series(_label(run, arm), pts))
    if not curves:
        return section("survival", "Survival", _missing("survival by decision depth", why))
    body = (
        "<h3>S(d): share of sessions still on the gold path after d decisions</h3>"
        + line_plot(curves, "decision depth d")
        + "<h3>success by gold writes needed</h3>"
        + grouped_bars(needs, "gold writes needed")
    )
    return section("survival", "Survival", body)


def _drift(run: ReportRun, arm: str) -> list[list[str]]:
    kinds: dict[str, list[bool]] = {}
    for s in run.sessions:
        if s.arm != arm or verdict(s) not in ("pass", "fail"):
            continue
        for kind in {e.payload.kind for e in s.events if isinstance(e, DriftAppliedEvent)}:
            kinds.setdefault(kind, []).append(verdict(s) == "pass")
    return [
        [_label(run, arm), k, str(len(v)), pct(sum(v) / len(v))] for k, v in sorted(kinds.items())
    ]


def recovery(runs: Sequence[ReportRun]) -> str:
    """Error recovery by class and drift tolerance by kind, per arm (guard vs no guard)."""
    rows, drift = [], []
    for run in runs:
        for arm, m in run.arms.items():
            for cls, r in (m.error_recovery.get("recovery_by_class") or {}).items():
                rate = r.get("rate")
                rows.append(
                    [
                        _label(run, arm),
                        str(cls),
                        str(r.get("failures")),
                        str(r.get("recovered")),
                        pct(rate if isinstance(rate, float) else None),
                    ]
                )
            drift += _drift(run, arm)
    body = "<h3>error recovery by class</h3>"
    body += (
        _table(["run · arm", "class", "failures", "recovered", "rate"], rows)
        if rows
        else _missing("error recovery", "no tool call failed")
    )
    body += "<h3>drift tolerance by kind</h3>"
    body += (
        _table(["run · arm", "drift kind", "sessions", "success"], drift)
        if drift
        else _missing("drift tolerance", "no schema drift was applied")
    )
    return section("recovery", "Recovery and drift", body)


def failures(runs: Sequence[ReportRun]) -> str:
    """Failure sources and first-divergence classes."""
    body = ""
    for run in runs:
        for arm, m in run.arms.items():
            fs = m.failure_sources
            src = [(k, float(v), str(v)) for k, v in fs.by_source.items()]
            if fs.undetermined:
                src.append(("undetermined", float(fs.undetermined), str(fs.undetermined)))
            body += f"<h3>{escape(_label(run, arm))}</h3>"
            body += bar_plot(src, share=False) if src else _missing("failure sources", "no failure")
            classes = m.survival.divergence_classes if m.survival else {}
            if classes:
                body += "<h4>first divergence (failed sessions)</h4>"
                body += bar_plot([(k, float(v), str(v)) for k, v in classes.items()], share=False)
            else:
                body += _missing("first-divergence classes", m.skipped.get("survival_by_depth", ""))
    return section("failures", "Where sessions fail", body)


def pattern_map(runs: Sequence[ReportRun]) -> str:
    """Findings with their advice, ranked by the failures they explain; then the behavioural
    motifs with their adjusted effect, interval, q and the control used."""
    body = ""
    for run in runs:
        body += f"<h3>{escape(run.model or run.run_id)}</h3>"
        p = run.patterns
        if p is None or not (p.findings or p.advice):
            body += _missing("the pattern map", p.note if p else run.patterns_note)
        else:
            ranked = sorted(p.findings, key=lambda f: (-f.covers_failures, f.q_value))
            body += _table(
                ["pattern", "failures / passes", "odds ratio", "q", "explains", "advice"],
                [
                    [
                        f.pattern,
                        f"{f.fail_support} / {f.pass_support}",
                        f"{f.odds_ratio:.2f}",
                        f"{f.q_value:.3g}",
                        pct(f.covers_failures),
                        f.advice or f.investment,
                    ]
                    for f in ranked[:30]
                ],
            )
            if p.advice:
                body += "<h4>investments, by failures covered</h4>"
                body += bar_plot(
                    [(a.investment, a.covers_failures, pct(a.covers_failures)) for a in p.advice]
                )
        if p is not None and p.motifs:
            body += _motifs(p)
    return section("patterns", "Pattern map", body)


def _motifs(p: PatternsReport) -> str:
    """The motifs table: counts, OR with its 95% interval, q, control; advice beneath."""
    label = "exploratory, not adjusted" if p.motif_control == "none" else "adjusted"
    body = f"<h4>behavioural motifs ({label}: {escape(p.motif_control_detail)})</h4>"
    rows = []
    for m in p.motifs:
        effect = (
            "n/a"
            if m.odds_ratio is None or m.ci is None
            else (f"{m.odds_ratio:.2f} [{m.ci[0]:.2f}, {m.ci[1]:.2f}]")
        )
        q = "n/a" if m.q_value is None else f"{m.q_value:.3g}"
        rows.append(
            [
                m.name,
                f"{m.failed} / {m.passed}",
                effect,
                q,
                m.control,
                str(m.sessions_used),
                m.note or m.advice,
            ]
        )
    body += _table(
        [
            "motif",
            "failures / passes with it",
            "odds ratio [95% CI]",
            "q",
            "control",
            "sessions used",
            "advice",
        ],
        rows,
    )
    if p.motif_note:
        body += f"<p class=note>{escape(p.motif_note)}</p>"
    for name, why in p.motifs_not_applicable.items():
        body += f"<p class=note>{escape(name)}: not applicable ({escape(why)})</p>"
    return body


def _natural(text: str) -> list[tuple[int, int | str]]:
    # "2" before "13": digit runs compare as numbers, the rest as text.
    return [(0, int(p)) if p.isdigit() else (1, p) for p in re.split(r"(\d+)", text) if p]


def grid(runs: Sequence[ReportRun]) -> str:
    """Scenario × trial verdicts per run × arm; each cell opens its session (and is its
    deep link, `#RUN/SESSION`)."""
    body = '<p class="legend"><span class="c pass"></span>pass <span class="c fail"></span>fail '
    body += '<span class="c infra"></span>infra error (not judged) '
    body += '<span class="c unjudged"></span>not judged <span class="c none"></span>no verdict</p>'
    for run in runs:
        for arm in run.arms:
            cells: dict[str, dict[int, tuple[str, str]]] = {}
            for s in run.sessions:
                if s.arm == arm:
                    cells.setdefault(s.scenario_id, {})[s.trial] = (verdict(s), session_key(s))
            flips = Counter(
                sid
                for sid, t in cells.items()
                if len({v for v, _ in t.values() if v in ("pass", "fail")}) > 1
            )
            body += f"<h3>{escape(_label(run, arm))} — {len(flips)} flaky</h3><div class=grid>"
            for sid in sorted(cells, key=lambda k: (k not in flips, _natural(k))):
                trials = cells[sid]
                links = "".join(
                    f'<a class="c {v}" href="#{escape(quote(key, safe="/"), quote=True)}" '
                    f'title="{escape(sid, quote=True)} trial {t}: {_SHOWN.get(v, v)}"></a>'
                    for t, (v, key) in sorted(trials.items())
                )
                flag = " flaky" if sid in flips else ""
                body += f'<div class="row{flag}"><span class=sid>{escape(sid)}</span>{links}</div>'
            body += "</div>"
    return section("grid", "Verdicts: scenario × trial", body)


def comparison_body(result: Comparison) -> str:
    """A paired comparison as a sentence and a table (B against A)."""
    rows = [
        [
            m.metric,
            str(m.pairs),
            pct(m.rate_a),
            pct(m.rate_b),
            f"{m.difference.estimate:+.1%} ({m.difference.low:+.1%}, {m.difference.high:+.1%})",
            f"{m.only_a} / {m.only_b}",
            f"{m.mcnemar_p:.3g}",
            "n/a" if m.pairs_needed is None else str(m.pairs_needed),
        ]
        for m in result.metrics
    ]
    body = f"<p>B {escape(result.run_b)} against A {escape(result.run_a)}, paired on "
    body += f"{escape(result.paired_on)}; {result.unpaired} unpaired.</p>"
    body += _table(
        [
            "metric",
            "pairs",
            "A",
            "B",
            "B − A (95% CI)",
            "only A / only B",
            "McNemar p",
            "pairs needed",
        ],
        rows,
        cls="compare",
    )
    for name, why in result.skipped.items():
        body += _missing(name, why)
    return body


def comparison(result: Comparison | None) -> str:
    """The paired comparison of the first two runs (when several are given)."""
    if result is None:
        return section("compare", "Comparison", _missing("run comparison", "give two runs"))
    return section("compare", "Comparison", comparison_body(result))
