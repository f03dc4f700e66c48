"""`runs`, `show` and `export`: read what the store holds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from .._defaults import DEFAULT_STORE_PATH
from ..errors import ConfigError, StoreError
from ._app import app, err_console, out_console
from ._outputs import refuse_clobber

if TYPE_CHECKING:
    from ..scoring._internal import PriceTable
    from ..store import Store

StoreOpt = Annotated[Path, typer.Option(help="DuckDB store file.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON.")]
PricesOpt = Annotated[
    list[Path] | None,
    typer.Option(
        "--prices",
        help="A price file (TOML or JSON, USD per 1M tokens) laid over the shipped table.",
        metavar="FILE",
    ),
]
PriceOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--price",
        help="One model's price, USD per 1M tokens: MODEL=IN/OUT or MODEL=IN/OUT/CACHED; MODEL is "
        "provider:model or model.",
        metavar="MODEL=IN/OUT",
    ),
]


def _open(path: Path) -> Store:
    from ..store import Store

    if not path.exists():
        raise StoreError(f"no store at {path}; run `sessionproof run` first or pass --store")
    db = Store.open_for_reading(path)
    if db.snapshot_of is not None:
        # Say so: the runs being written may have more sessions by the time this prints.
        live = [r.run_id for r in db.list_runs() if r.status == "running"]
        who = f"process {db.snapshot_of}" if db.snapshot_of else "another process"
        doing = f"; run {', '.join(live)} in progress" if live else ""
        err_console.print(
            f"store {escape(str(path))} is held by {who}: reading a snapshot{escape(doing)}",
            highlight=False,
            soft_wrap=True,
        )
    return db


@app.command("runs")
def runs(store: StoreOpt = DEFAULT_STORE_PATH, as_json: JsonOpt = False) -> None:
    """List stored runs, newest first."""
    from ..report._internal import render_table
    from ..scoring._internal import summaries_by_arm

    with _open(store) as db:
        listed = list(reversed(db.list_runs()))
        # A run of several arms has an accuracy per arm, never one over the arms pooled.
        by_arm = {
            r.run_id: summaries_by_arm(db.session_rows(r.run_id), r.arms)
            for r in listed
            if len(r.arms) > 1
        }
    if as_json:
        found = []
        for r in listed:
            item = r.model_dump(mode="json")
            if r.run_id in by_arm:
                item["accuracy"] = None
                item["accuracy_by_arm"] = {
                    a: s.session_accuracy for a, s in by_arm[r.run_id].items()
                }
            found.append(item)
        typer.echo(json.dumps(found, indent=2))
        return
    rows = [
        [
            r.run_id,
            r.created_at[:19],
            r.command,
            r.suite,
            r.model,
            f"{r.sessions_done}/{r.sessions_expected}",
            _accuracy(r.accuracy)
            if r.run_id not in by_arm
            else "\n".join(
                f"{a}: {_accuracy(s.session_accuracy)}" for a, s in by_arm[r.run_id].items()
            ),
            str(r.infra_errors),
            r.status,
        ]
        for r in listed
    ]
    cols = ["run", "created", "cmd", "suite", "model", "sessions", "accuracy", "infra", "status"]
    # Arm names in a multi-arm run's accuracy cell are never cut either.
    render_table(out_console, f"runs in {store}", cols, rows, keep=(0, 6) if by_arm else (0,))


def _accuracy(value: float | None) -> str:
    from ..report._internal import pct

    return "–" if value is None else pct(value)


@app.command("show")
def show(
    run_id: Annotated[str, typer.Argument(help="Run id (a unique prefix is enough).")],
    session: Annotated[str | None, typer.Option(help="Show one session's transcript.")] = None,
    store: StoreOpt = DEFAULT_STORE_PATH,
    as_json: JsonOpt = False,
    with_metrics: Annotated[
        bool,
        typer.Option(
            "--metrics",
            help="Every metric with its definition: session accuracy (Wilson and bootstrap "
            "CIs), pass^k and pass@k, flakiness, single-call accuracy and validity, error "
            "recovery by class, survival by decision depth, first divergence, failure sources.",
        ),
    ] = False,
    target_mde: Annotated[
        float | None,
        typer.Option(
            "--target-mde",
            help="With --metrics: the difference of success rate (in (0, 1), default 0.05) "
            "the noise floor's 'trials needed' is computed for.",
        ),
    ] = None,
    split: Annotated[
        str | None,
        typer.Option(
            "--split",
            help="With --metrics: other runs (comma-separated) of one `run --vary` design "
            "with this one: the verdict variance of each arm shared between agent, user and "
            "judge (the judge's only from a `run --vary judge --judge MODEL`).",
            metavar="RUN[,RUN]",
        ),
    ] = None,
    prices: PricesOpt = None,
    price: PriceOpt = None,
) -> None:
    """A run's summary, or one session's transcript with `--session`, or `--metrics` (with
    the cost per session and per successful session, by agent, simulated user and judge,
    priced by the shipped table as of its date, `--prices FILE` and `--price` over it)."""
    from ..report._internal import render_definitions, render_table, render_transcript
    from ..scoring._internal import price_table, summaries_by_arm, verdict_label
    from ._boundaries import faulted_arms, render_boundaries
    from ._summaries import render_summaries, summaries_json

    target = _target_mde(target_mde, with_metrics and not session)
    if split is not None and not (with_metrics and not session):
        raise ConfigError("--split goes with --metrics (it adds the variance split to them)")
    others = [] if split is None else [r.strip() for r in split.split(",") if r.strip()]
    table = price_table(prices or [], price or [])
    with _open(store) as db:
        if with_metrics and not session:
            _show_metrics(db, run_id, as_json, target, others, table)
            return
        manifest = db.get_run(run_id)
        if session:
            found = db.load_sessions(manifest.run_id, session_id=session)
            if not found:
                ids = [r.session_id for r in db.session_rows(manifest.run_id)][:10]
                raise StoreError(
                    f"run {manifest.run_id} has no session {session!r}; some ids: {', '.join(ids)}"
                )
            if as_json:
                typer.echo(found[0].model_dump_json(indent=2))
            else:
                render_transcript(out_console, found[0])
            return
        rows = db.session_rows(manifest.run_id)
        # The cost (--json) and the boundary table (a run whose arms inject faults) read each
        # session's events: loaded only then, ~0.8 ms a tau2 session.
        has_faults = faulted_arms(manifest.arms)
        sessions = db.load_sessions(manifest.run_id) if as_json or has_faults else []
        faulted = sessions if has_faults else []
    by_arm = summaries_by_arm(rows, manifest.arms)
    if as_json:
        from ..scoring._internal import cost_summary

        payload = summaries_json({"manifest": manifest.model_dump(mode="json")}, by_arm)
        for arm, shown in payload["arms"].items():  # each arm's own sessions, never pooled
            cost = cost_summary([s for s in sessions if s.arm == arm], table)
            shown["cost"] = cost.model_dump(mode="json")
        typer.echo(json.dumps(payload, indent=2))
        return
    out_console.print(
        f"[bold]{manifest.run_id}[/] {escape(manifest.command)} suite={escape(manifest.suite)} "
        f"model={escape(manifest.model)} seed={manifest.seed} trials={manifest.trials} "
        f"status={manifest.status}",
        highlight=False,
    )
    render_summaries(out_console, by_arm)
    table_rows = [
        [
            r.session_id,
            r.arm,
            verdict_label(r),
            r.termination,
            str(r.n_steps),
            str(r.n_tool_calls),
            str(r.n_tool_errors),
        ]
        for r in rows
    ]
    cols = ["session", "arm", "verdict", "termination", "steps", "calls", "errors"]
    render_table(out_console, "sessions", cols, table_rows, keep=(0, 1))
    title = "faults at the tool and model boundaries"
    render_boundaries(title, manifest.arms, faulted)
    if any(row[2] == "unevaluated" for row in table_rows):
        out_console.print(
            "unevaluated: no evaluated criterion failed, but some could not be evaluated "
            "(e.g. natural-language assertions without --judge); see --session",
            highlight=False,
        )
    render_definitions(out_console)


def _target_mde(value: float | None, with_metrics: bool) -> float:
    from ..scoring._internal import DEFAULT_TARGET_MDE

    if value is None:
        return DEFAULT_TARGET_MDE
    if not with_metrics:
        raise ConfigError("--target-mde goes with --metrics (it sets the noise floor's target)")
    if not 0.0 < value < 1.0:
        raise ConfigError(
            f"--target-mde must be a difference of success rate in (0, 1), e.g. 0.05; got {value:g}"
        )
    return value


def _show_metrics(
    db: Store,
    run_id: str,
    as_json: bool,
    target_mde: float,
    split: list[str],
    prices: PriceTable,
) -> None:
    from ..report._internal import (
        render_breakdowns,
        render_cost,
        render_metric_definitions,
        render_metrics,
        render_noise,
        render_split,
    )
    from ..runs import metrics

    found = metrics(run_id, store=db, target_mde=target_mde, split=split, prices=prices)
    if as_json:
        typer.echo(json.dumps(found.to_json(), indent=2))
        return
    out_console.print(
        f"[bold]{found.run_id}[/] {escape(found.command)} suite={escape(found.suite)} "
        f"model={escape(found.model)} sessions={found.sessions}",
        highlight=False,
    )
    scenarios = found.scenarios
    out_console.print(
        f"scenarios: {escape(scenarios.source)} ({scenarios.available} found)", highlight=False
    )
    for arm, report in found.arms.items():
        render_metrics(out_console, report, f"arm {arm}", definitions=False)
        render_noise(out_console, found.noise[arm], f"arm {arm}: noise floor")
        if arm in found.variance_split:
            split_of = found.variance_split[arm]
            render_split(out_console, split_of, f"arm {arm}: verdict variance by party")
        if arm in found.breakdowns:
            render_breakdowns(out_console, found.breakdowns[arm], f"arm {arm}", definitions=False)
        if arm in found.costs:
            render_cost(out_console, found.costs[arm], f"arm {arm}: cost")
    extra = next(iter(found.breakdowns.values()), None)
    render_metric_definitions(
        out_console,
        {**found.definitions, **(extra.definitions if extra else {})},
    )


@app.command("export")
def export(
    target: Annotated[
        str,
        typer.Argument(
            help="Parquet: the output directory. otlp-json / otlp-proto / rollouts / atif: the "
            "run id (a unique prefix is enough).",
            metavar="DIR|RUN_ID",
        ),
    ],
    fmt: Annotated[
        str | None,
        typer.Option(
            "--format",
            help="parquet | otlp-json | otlp-proto | rollouts | atif | a transcript format that "
            "can be written, e.g. tau2 (-o FILE) (default: otlp-json when an OTLP option is "
            "given, else parquet)",
        ),
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option("-o", "--output", help="OTLP, rollouts, atif: the file to write."),
    ] = None,
    outcome: Annotated[
        str | None,
        typer.Option(help="rollouts, atif: only judged passes or failures.", metavar="pass|fail"),
    ] = None,
    arm: Annotated[
        str | None,
        typer.Option(
            help="rollouts, atif, transcript formats: only this arm's sessions (a transcript "
            "format's file holds one arm).",
            metavar="ARM",
        ),
    ] = None,
    otlp_endpoint: Annotated[
        str | None,
        typer.Option(help="OTLP: send by OTLP/HTTP protobuf to this collector URL.", metavar="URL"),
    ] = None,
    otlp_header: Annotated[
        list[str] | None, typer.Option(help="OTLP: a header to send, K=V.", metavar="K=V")
    ] = None,
    content: Annotated[
        bool,
        typer.Option(
            "--otel-content", help="OTLP: include messages, arguments and results (scrubbed)."
        ),
    ] = False,
    otel_compat: Annotated[
        str | None,
        typer.Option(
            help="OTLP: also the attributes Phoenix (openinference) or Langfuse (langfuse) read.",
            metavar="openinference|langfuse",
        ),
    ] = None,
    run_id: Annotated[str | None, typer.Option(help="Parquet: only this run.")] = None,
    store: StoreOpt = DEFAULT_STORE_PATH,
    prices: PricesOpt = None,
    price: PriceOpt = None,
) -> None:
    """Export sessions and events to Parquet, or a run as OpenTelemetry GenAI traces.

    `export DIR [--run-id RUN]` writes sessions.parquet and events.parquet. `export RUN_ID
    --format otlp-json -o FILE` writes OTLP-JSON (otlp-proto: protobuf); `--otlp-endpoint URL
    [--otlp-header K=V]` sends by OTLP/HTTP (the OTEL_EXPORTER_OTLP_* variables are honoured
    when no endpoint is given and no file either). Model-call spans carry
    `gen_ai.usage.*` tokens and, where priced (the shipped table, `--prices`, `--price`),
    `sessionproof.cost.usd`; the session's root span its cost in all and by role.
    `export RUN_ID --format rollouts -o FILE.jsonl [--outcome pass|fail] [--arm ARM]` writes
    one line per session for training, with per-turn and per-step credit (docs/rollouts.md);
    `--format atif -o FILE.json` Harbor's ATIF v1.7 trajectories, which `import` reads back;
    `--format tau2 -o FILE [--arm ARM]` a tau2-bench results file (one arm per file).
    """
    if fmt is None:
        otlp = (
            output is not None
            or otlp_endpoint is not None
            or otlp_header
            or content
            or otel_compat is not None
        )
        fmt = "otlp-json" if otlp else "parquet"
    if outcome is not None and fmt not in ("rollouts", "atif"):
        raise ConfigError("--outcome can filter rollouts and atif exports only")
    if arm is not None and fmt in ("parquet", "otlp-json", "otlp-proto"):
        raise ConfigError("--arm filters rollouts, atif and transcript-format exports only")
    if fmt not in ("parquet", "otlp-json", "otlp-proto", "rollouts", "atif"):
        # a transcript format's writer (tau2)
        from ..runs._internal import export_file

        if output is None:
            raise ConfigError(f"--format {fmt} writes a file: give -o FILE")
        refuse_clobber(output, store=store)
        count = export_file(target, fmt, output, store, arm)
        err_console.print(f"{count} sessions to {escape(str(output))}", highlight=False)
        return
    if fmt == "parquet":
        with _open(store) as db:
            paths = db.export_parquet(Path(target), run_id=run_id)
        for p in paths:
            typer.echo(str(p))
        return
    from ..runs import ExportConfig, export_traces
    from ..scoring._internal import price_table
    from ..telemetry._internal import parse_headers

    refuse_clobber(output, store=store)
    if fmt in ("rollouts", "atif"):
        written = export_traces(
            ExportConfig(
                run_id=target,
                store=store,
                fmt=fmt,
                output=output,
                outcome=outcome,
                arm=arm,
                endpoint=otlp_endpoint,
                headers=parse_headers(otlp_header or []),
                content=content,
                compat=otel_compat,
            )
        )
        err_console.print(f"{written} sessions to {escape(str(output))}", highlight=False)
        return
    config = ExportConfig(
        run_id=target,
        store=store,
        fmt=fmt,
        output=output,
        endpoint=otlp_endpoint,
        headers=parse_headers(otlp_header or []),
        content=content,
        use_env=output is None and otlp_endpoint is None,
        compat=otel_compat,
        prices=price_table(prices or [], price or []),
    )
    count = export_traces(config)
    where = [str(output)] if output is not None else []
    if otlp_endpoint is not None or output is None:
        where.append(otlp_endpoint or "the OTEL_EXPORTER_OTLP_* endpoint")
    err_console.print(f"{count} spans to {escape(' and '.join(where))}", highlight=False)
