"""`sessionproof rerun`: replay real transcripts against a candidate model and compare."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import orjson
import typer
from rich.markup import escape

from .._defaults import DEFAULT_STORE_PATH
from ._app import app, err_console, out_console, progress_console
from ._import import LabelFromOpt
from ._later import help_later
from ._report import NoReportOpt, write_run_report

if TYPE_CHECKING:
    from ..rerun._internal import RerunReport, TranscriptRerun

RERUN_HELP = (
    "Rerun real transcripts (tau2, tau-bench, OpenAI or Anthropic chat logs) against a "
    "candidate model in the same domain, and compare completion with the originals.\n\n"
    "User side: the transcript's own user messages, in order; or, when the file attaches a "
    "task (tau2 and tau-bench files do), a user simulated by --user-model (default: the "
    "candidate; oracle and python: agents get the task's instructions as one message).\n\n"
    "Judged as the original was: tau2 reward, tau-bench reward, an attached scenario's "
    "criteria; a chat log with only an `outcome` of success by reaching the original's end "
    "state; with no criterion at all, only termination and behaviour are compared.\n\n"
    "Paired difference: every rerun trial is paired with its transcript's original verdict "
    "(pairs are transcript × trial); exact McNemar p on the discordant pairs and a bootstrap "
    "95% interval of rerun − original. Sessions ending in infra_error are not judged.\n\n"
    "Without the domain (--domain recorded, or automatically when the transcript's domain is "
    "not known here): each call is answered from the transcript's own recorded results "
    "(same tool, arguments equal after normalisation); any other call gets a 'no recorded "
    "response' not_found result and a recorded_divergence event. Such reruns are not judged; "
    "their divergences are counted.\n\n"
    "Forks (--fork-at TURN|divergence): each transcript's turns before TURN are replayed "
    "exactly (recorded user and agent messages, the agent's tool calls run against the "
    "domain), then the candidate answers from TURN on; `divergence` forks a failed "
    "transcript at the turn of its first divergence (a passed one is not forked). "
    "--baseline-lane MODEL|recorded runs the same forks with another agent or the recorded "
    "agent's own later messages; each lane is stored as its own run."
)

_WHY_CHARS = 120
"""The table cuts a reason here; `--json` and the stored sessions keep it whole."""


def _mark(verdict: bool | None) -> str:
    return "n/a" if verdict is None else ("pass" if verdict else "fail")


def _row(t: TranscriptRerun) -> list[str]:
    reruns = " ".join(_mark(v) for v in t.rerun) or "-"
    ends = ", ".join(dict.fromkeys(s.termination for s in t.rerun_shapes)) or "-"
    why = t.why or ""
    if len(why) > _WHY_CHARS:
        why = why[: _WHY_CHARS - 1] + "…"
    return [
        escape(t.id),
        escape(t.task),
        t.judged_by,
        _mark(t.original),
        reruns,
        f"{t.original_shape.termination} → {escape(ends)}",
        escape(why),
    ]


def _print(report: RerunReport) -> None:
    from rich.table import Table

    from ..report._internal import pct

    name = Path(report.source).name
    table = Table(title=f"rerun {escape(name)} ({report.format}) with {escape(report.model)}")
    for column in ("transcript", "task", "judged by", "original", "rerun", "termination"):
        table.add_column(column, no_wrap=column != "termination", max_width=14)
    table.add_column("why", ratio=1)
    for t in report.transcripts:
        table.add_row(*_row(t))
    out_console.print(table)
    overall = Table(title="overall")
    overall.add_column("measure")
    overall.add_column("value", justify="right")
    overall.add_row("run", report.run_id)
    overall.add_row("transcripts", str(len(report.transcripts)))
    overall.add_row("trials", str(report.trials))
    overall.add_row("original completion", pct(report.original_accuracy))
    overall.add_row("rerun completion", pct(report.rerun_accuracy))
    p = report.paired
    if p is not None:
        d = p.difference
        overall.add_row("pairs (transcript × trial)", str(p.scenarios))
        overall.add_row("paired Δ (rerun − original)", f"{d.estimate:+.1%}")
        overall.add_row("95% CI (bootstrap)", f"{d.low:+.1%} … {d.high:+.1%}")
        overall.add_row("only original / only rerun", f"{p.only_a} / {p.only_b}")
        overall.add_row("McNemar p (exact)", f"{p.mcnemar_p:.3g}")
        overall.add_row("unpaired", str(len(p.unpaired)))
    else:
        overall.add_row("paired Δ", escape(report.paired_note or "n/a"))
    if report.recorded:
        divergences = sum(sum(t.divergences) for t in report.transcripts)
        overall.add_row("answered from recorded responses", str(report.recorded))
        overall.add_row("divergences (calls not in the recording)", str(divergences))
    overall.add_row("records skipped", str(len(report.skipped)))
    out_console.print(overall)
    if report.store:
        out_console.print(
            f"stored in {escape(report.store)}; details: sessionproof show {report.run_id} "
            f"--store {escape(report.store)}",
            highlight=False,
        )


def _format_help() -> dict[str, str]:
    from ..importers import FORMATS

    return {"fmt": "auto | " + " | ".join(FORMATS) + "."}


@app.command("rerun", help=RERUN_HELP, cls=help_later(_format_help))
def rerun_command(
    path: Annotated[Path, typer.Argument(help="Transcript file to rerun.")],
    model: Annotated[str, typer.Option(help="Candidate model spec (as for `run`).")],
    trials: Annotated[int, typer.Option(min=1, help="Reruns per transcript.")] = 1,
    domain: Annotated[
        str | None,
        typer.Option(
            help="Domain to rerun in (overrides); `recorded`: the transcript's own results."
        ),
    ] = None,
    fmt: Annotated[
        str, typer.Option("--format", help="auto | the formats this installation reads.")
    ] = "auto",
    suite: Annotated[
        str | None,
        typer.Option(
            help="A project directory or suite file (as for `run`): its domains are known and "
            "a transcript whose scenario id is one of its scenarios reruns that scenario."
        ),
    ] = None,
    user_model: Annotated[
        str | None, typer.Option(help="Model for simulated users (default: the candidate).")
    ] = None,
    limit: Annotated[int | None, typer.Option(min=1, help="Only the first N transcripts.")] = None,
    concurrency: Annotated[
        int | None, typer.Option(min=1, help="Sessions at once (default 1 for local, else 4).")
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed for sampling and the bootstrap.")] = 0,
    max_steps: Annotated[int, typer.Option(min=1, help="Agent decisions per session.")] = 40,
    judge: Annotated[str | None, typer.Option(help="Judge model for NL assertions.")] = None,
    store: Annotated[Path, typer.Option(help="DuckDB store file.")] = DEFAULT_STORE_PATH,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    no_report: NoReportOpt = False,
    label_from: LabelFromOpt = None,
    fork_at: Annotated[
        str | None,
        typer.Option(
            help="Fork each transcript at this turn (0-based) or at its first `divergence`: "
            "its earlier turns are replayed exactly into the domain, the candidate answers "
            "from there on."
        ),
    ] = None,
    baseline_lane: Annotated[
        str | None,
        typer.Option(
            help="With --fork-at: run the same forks with this model too, or `recorded` "
            "(the recorded agent's own later messages), to tell the candidate's effect "
            "from the fork's."
        ),
    ] = None,
) -> None:
    from .. import runs
    from ._progress import RunProgress

    try:
        with RunProgress(progress_console(), "reruns") as progress:
            config = runs.RerunConfig(
                path=path,
                model=model,
                fmt=fmt,
                domain=domain,
                suite=suite,
                trials=trials,
                user_model=user_model,
                limit=limit,
                concurrency=concurrency,
                seed=seed,
                store=store,
                judge=judge,
                max_steps=max_steps,
                label_from=label_from,
                fork_at=fork_at,
                baseline_lane=baseline_lane,
            )
            report = runs.rerun(config, progress=progress, argv=sys.argv[1:])
    except KeyboardInterrupt:
        err_console.print("interrupted; the sessions finished so far are stored")
        raise typer.Exit(130) from None
    for skipped in report.skipped:
        err_console.print(
            f"[yellow]skipped[/] {escape(skipped.record)}: {escape(skipped.why)}",
            highlight=False,
            soft_wrap=True,
        )
    for warning in report.warnings:  # kept records the importer had to read around
        err_console.print(f"[yellow]warning:[/] {escape(warning)}", highlight=False, soft_wrap=True)
    if report.recorded:
        # Said on stderr too, so it is seen with --json: these reruns never touched a domain.
        err_console.print(
            f"{report.recorded} transcript(s) rerun against recorded responses: their domain "
            "was not available (or --domain recorded), so each call is answered from the "
            "transcript's own results and a call not in the recording is a divergence",
            highlight=False,
            soft_wrap=True,
        )
    for item in report.not_forked:  # said on stderr too, so it is seen with --json
        err_console.print(
            f"not forked {escape(item.record)}: {escape(item.why)}",
            highlight=False,
            soft_wrap=True,
        )
    if as_json:
        sys.stdout.buffer.write(orjson.dumps(report.summary(), option=orjson.OPT_INDENT_2) + b"\n")
        sys.stdout.flush()
    elif report.fork_at is not None:
        from ._rerun_fork import print_forks

        print_forks(report)
    else:
        _print(report)
    nothing = report.fork_at is not None and not report.transcripts  # no run was stored
    write_run_report(report.run_id, Path(report.store or store), no_report or nothing)
    if report.baseline_run_id:  # the baseline lane is a run of its own, with its own report
        write_run_report(report.baseline_run_id, Path(report.store or store), no_report)
    raise typer.Exit(1 if report.skipped else 0)
