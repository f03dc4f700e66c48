"""`sessionproof patterns`: which tool-call sequences precede failure, and what to build."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import orjson
import typer
from rich.markup import escape

from .._defaults import DEFAULT_STORE_PATH
from ._app import app, err_console, out_console
from ._import import LabelFromOpt
from ._later import help_later

if TYPE_CHECKING:
    from ..patterns import PatternsReport


def _format_help() -> dict[str, str]:
    from ..importers import format_names

    return {"fmt": " | ".join(("auto", *format_names()))}


@app.command("patterns", cls=help_later(_format_help))
def patterns(
    target: Annotated[str, typer.Argument(help="A stored run id, or a file `score` reads.")],
    min_support: Annotated[
        int, typer.Option("--min-support", min=1, help="Failed sessions a pattern needs.")
    ] = 3,
    max_len: Annotated[int, typer.Option("--max-len", min=1, max=3, help="Tokens.")] = 3,
    max_gap: Annotated[
        int, typer.Option("--max-gap", min=0, help="Tokens a gapped link `…` may skip.")
    ] = 1,
    granularity: Annotated[
        str, typer.Option(help="tool | outcome (tool + error class) | args (+ argument names).")
    ] = "outcome",
    arm: Annotated[
        str | None,
        typer.Option(
            help="The arm to mine (default, of several: the unguarded arm with the most "
            "failed sessions; which one is said on stderr and as `arm_choice` in --json)."
        ),
    ] = None,
    top: Annotated[int, typer.Option(min=1, help="Findings to report.")] = 20,
    fmt: Annotated[
        str, typer.Option("--format", help="auto | the formats this installation reads")
    ] = "auto",
    domain: Annotated[str | None, typer.Option(help="Domain of a transcript file.")] = None,
    suite: Annotated[
        str | None,
        typer.Option(
            help="A project directory or suite file (as for `run`) whose domains and "
            "scenarios a transcript file (or an imported run) is judged in."
        ),
    ] = None,
    store: Annotated[Path, typer.Option(help="DuckDB store file.")] = DEFAULT_STORE_PATH,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    label_from: LabelFromOpt = None,
    require_read: Annotated[
        list[str] | None,
        typer.Option(
            "--require-read",
            help="WRITE=READ: a read a policy wants before that write (the "
            "policy_read_skipped motif; repeatable).",
        ),
    ] = None,
) -> None:
    """Tool-call sequences that precede failure within scenario, with the investment each
    points to.

    Each session becomes tokens (`call:TOOL`, `result:TOOL:CLASS`, `guard:retry`,
    `drift:KIND:TOOL`, `user:text`, `user:correction`, `agent:text`, `end:REASON`). Patterns of
    up to --max-len tokens (`→` adjacent, `…` up to --max-gap skipped) held by at least
    --min-support failed sessions are tested within scenario (one-sided
    Cochran–Mantel–Haenszel), with Benjamini–Hochberg q-values, and reduced to a non-redundant
    set. Fields: fail_support / pass_support (sessions holding the pattern), odds_ratio with its
    95% ci (Mantel–Haenszel), q_value, covers_failures (share of failed sessions holding it),
    examples (failed session ids), advice. Also: precursors (n-grams ending at each failed
    session's first divergence) and risk (cross-validated AUC by prefix length, folds grouped by
    scenario, beside a step-count baseline).
    """
    from .. import runs
    from ..patterns import MineOptions

    opts = MineOptions(min_support=min_support, max_len=max_len, max_gap=max_gap, top=top)
    mined = runs.patterns(
        target,
        store=store,
        fmt=fmt,
        domain=domain,
        options=opts,
        granularity=granularity,
        arm=arm,
        label_from=label_from,
        suite=suite,
        require_reads=require_read or (),
    )
    if mined.skipped_records:
        err_console.print(
            f"[yellow]{mined.skipped_records} record(s) skipped or kept with a warning[/] "
            "(`sessionproof score` names them)",
            highlight=False,
        )
    if mined.arm_choice:
        # On stderr too, so it is seen with --json.
        err_console.print(escape(mined.arm_choice), highlight=False, soft_wrap=True)
    report, source = mined.report, mined.source
    if as_json:
        payload = {
            "source": source,
            **report.model_dump(mode="json"),
            **({"arm_choice": mined.arm_choice} if mined.arm_choice else {}),
        }
        sys.stdout.buffer.write(orjson.dumps(payload, option=orjson.OPT_INDENT_2) + b"\n")
        sys.stdout.flush()
        return
    render_patterns(report, source)


def render_patterns(report: PatternsReport, source: str) -> None:
    """The one-screen terminal view."""
    from ..report._internal import render_table

    arm = f"arm {escape(report.arm)}, " if report.arm is not None else ""
    out_console.print(
        f"[bold]patterns[/] {escape(source)}: {arm}"
        f"{report.sessions} sessions, {report.failures} failed, {report.tested} patterns tested, "
        f"{report.informative_strata} scenarios with both outcomes "
        f"(granularity {report.granularity})",
        highlight=False,
    )
    if report.note:
        out_console.print(f"[yellow]{escape(report.note)}[/]", highlight=False)
    rows = [
        [
            f.pattern,
            f"{f.fail_support}/{f.pass_support}",
            f"{f.odds_ratio:.1f} [{f.ci[0]:.1f}, {f.ci[1]:.1f}]",
            f"{f.q_value:.2g}",
            f"{f.covers_failures:.0%}",
            f.investment,
        ]
        for f in report.findings[:10]
    ]
    if rows:
        cols = ["pattern", "fail/pass", "OR [95% CI]", "q", "covers", "investment"]
        render_table(out_console, "findings (within scenario)", cols, rows)
    elif report.exploratory:
        rows = [
            [
                f.pattern,
                f"{f.fail_support}/{f.pass_support}",
                f"{f.odds_ratio:.1f}",
                f"{f.q_value:.2g}",
            ]
            for f in report.exploratory[:5]
        ]
        render_table(
            out_console,
            "exploratory, NOT stratified (confounded by scenario)",
            ["pattern", "fail/pass", "OR", "q"],
            rows,
        )
    _render_motifs(report)
    for item in report.advice[:5]:
        out_console.print(
            f"→ {escape(item.investment)}: {item.covers_failures:.0%} of failures "
            f"({len(item.patterns)} pattern(s))",
            highlight=False,
        )
    if report.precursors:
        rows = [
            [p.pattern, str(p.failures), f"{p.share:.0%}", str(p.pass_support)]
            for p in report.precursors[:5]
        ]
        render_table(
            out_console,
            "precursors (ending at the first divergence)",
            ["n-gram", "failures", "share", "in passed"],
            rows,
        )
    risk = report.risk
    if risk.cv_auc_by_prefix:

        def auc(x: float | None) -> str:
            return "-" if x is None else f"{x:.2f}"

        with_motifs = bool(risk.motif_auc_by_prefix)
        rows = [
            [
                k,
                str(risk.at_risk_by_prefix.get(k, 0)),
                auc(v),
                *([auc(risk.motif_auc_by_prefix.get(k))] if with_motifs else []),
                auc(risk.baseline_auc_by_prefix.get(k)),
            ]
            for k, v in risk.cv_auc_by_prefix.items()
        ]
        render_table(
            out_console,
            "early warning: CV AUC by prefix (folds grouped by scenario)",
            [
                "prefix tokens",
                "running",
                "model",
                *(["model + motifs"] if with_motifs else []),
                "step-count baseline",
            ],
            rows,
        )
    if risk.note:
        out_console.print(f"risk: {escape(risk.note)}", highlight=False)


def _render_motifs(report: PatternsReport) -> None:
    """The motifs table: counts, adjusted effect with its interval, q, and the control."""
    from ..report._internal import render_table

    def num(x: float | None, fmt: str = ".2f") -> str:
        return "-" if x is None else format(x, fmt)

    rows = [
        [
            m.name,
            f"{m.failed}/{m.failed_judged}",
            f"{m.passed}/{m.passed_judged}",
            "-"
            if m.odds_ratio is None or m.ci is None
            else f"{m.odds_ratio:.2f} [{m.ci[0]:.2f}, {m.ci[1]:.2f}]",
            num(m.q_value, ".2g"),
            str(m.sessions_used),
            m.investment,
        ]
        for m in report.motifs
    ]
    if not rows and not report.motifs_not_applicable:
        return
    label = "exploratory, NOT adjusted" if report.motif_control == "none" else "adjusted"
    if rows:
        render_table(
            out_console,
            f"motifs ({label}; control: {report.motif_control})",
            ["motif", "in failed", "in passed", "OR [95% CI]", "q", "used", "investment"],
            rows,
        )
    if report.motif_control_detail:
        out_console.print(f"motif control: {escape(report.motif_control_detail)}", highlight=False)
    if report.motif_note:
        out_console.print(f"[yellow]{escape(report.motif_note)}[/]", highlight=False)
    for name, why in report.motifs_not_applicable.items():
        out_console.print(f"motif {escape(name)}: not applicable ({escape(why)})", highlight=False)
    for item in report.motif_advice[:5]:
        mark = "→" if item.supported else "? (candidate)"
        out_console.print(
            f"{mark} {escape(item.investment)}: {item.covers_failures:.0%} of failures "
            f"({', '.join(item.motifs)}); {escape(item.evidence)}",
            highlight=False,
        )
        for line in item.guarded:
            out_console.print(f"    {escape(line)}", highlight=False)
