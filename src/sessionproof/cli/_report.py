"""`report` and `compare`: the HTML report of stored runs, and two runs paired."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from .._atomic import replaced_on_success
from .._defaults import DEFAULT_STORE_PATH
from ..errors import InputFileError, SessionproofError
from ._app import app, err_console, out_console
from ._inspect import PriceOpt, PricesOpt
from ._outputs import refuse_clobber

StoreOpt = Annotated[Path, typer.Option(help="DuckDB store file.")]
NoReportOpt = Annotated[
    bool, typer.Option("--no-report", help="Do not write the HTML report at the end.")
]


@app.command("report")
def report_command(
    run_ids: Annotated[list[str], typer.Argument(help="Stored run ids (or unique prefixes).")],
    output: Annotated[
        Path | None,
        typer.Option(
            "-o", "--output", help="HTML file (default: STORE-reports/RUN.html beside the store)."
        ),
    ] = None,
    store: StoreOpt = DEFAULT_STORE_PATH,
    prices: PricesOpt = None,
    price: PriceOpt = None,
    audit: Annotated[
        bool,
        typer.Option(
            "--audit",
            help="Add the audit of the first run's suite (`sessionproof audit`) as a section.",
        ),
    ] = False,
) -> None:
    """Write one self-contained HTML report of the runs (no network at view time): headline,
    survival, recovery and drift, failure sources, cost by agent, simulated user and judge,
    the pattern map, the verdict grid with every session one click away, and the comparison
    of the first two runs; `--audit` adds the audit of the first run's suite."""
    from ..runs import report
    from ..scoring._internal import price_table

    table = price_table(prices or [], price or [])
    refuse_clobber(output, store=store)
    if output is None:
        path = report(run_ids, output, store, prices=table, audit=audit)
    else:
        # Written beside the file and renamed over it: a failed write keeps the old report.
        try:
            with replaced_on_success(output) as partial:
                report(run_ids, partial, store, prices=table, audit=audit)
        except OSError as exc:
            raise InputFileError(f"cannot write the report to {output}: {exc.strerror}") from None
        path = output
    out_console.print(str(path), highlight=False, soft_wrap=True)


@app.command("compare")
def compare_command(
    run_a: Annotated[str, typer.Argument(help="Run A (the reference).")],
    run_b: Annotated[str, typer.Argument(help="Run B.")],
    store: StoreOpt = DEFAULT_STORE_PATH,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Run B against run A on shared scenario × trial pairs: the paired difference per metric
    with a bootstrap 95% interval, the exact McNemar p, and the pairs needed to detect it."""
    from ..runs import compare

    result = compare(run_a, run_b, store)
    if as_json:
        print(json.dumps(result.model_dump(mode="json"), indent=2))
        return
    out_console.print(
        f"B {escape(result.run_b)} vs A {escape(result.run_a)}, "
        f"paired on {escape(result.paired_on)}; {result.unpaired} unpaired"
    )
    for m in result.metrics:
        d = m.difference
        needed = "n/a" if m.pairs_needed is None else str(m.pairs_needed)
        out_console.print(
            f"{escape(m.metric)}: A {m.rate_a:.1%}, B {m.rate_b:.1%}, B − A {d.estimate:+.1%} "
            f"(95% {d.low:+.1%}, {d.high:+.1%}), only A/B {m.only_a}/{m.only_b}, "
            f"McNemar p {m.mcnemar_p:.3g}, pairs needed {needed} ({m.pairs} pairs)",
            highlight=False,
        )
    for name, why in result.skipped.items():
        out_console.print(f"[yellow]skipped[/] {escape(name)}: {escape(why)}")


def told_report(path: str | None, error: str | None) -> None:
    """Print where a run's report went (written by the run itself), or why it was not."""
    if error is not None:
        err_console.print(f"[yellow]report not written:[/] {escape(error)}", soft_wrap=True)
    elif path is not None:
        err_console.print(f"report: {escape(path)}", highlight=False, soft_wrap=True)


def write_run_report(run_id: str, store: Path, skip: bool) -> None:
    """End of `run`, `score`, `rerun`: write the run's report to the folder beside the store
    (`default_report_path`) and print its path on stderr (stdout stays the command's own
    output, e.g. --json). A report that cannot be written is a warning: the run is stored."""
    if skip or not run_id:
        return
    from ..runs import report
    from ..runs._internal import default_report_path

    try:
        path = report([run_id], default_report_path(store, run_id), store)
    except SessionproofError as exc:
        told_report(None, str(exc))
        return
    told_report(str(path), None)
