"""`runs`, `show` and `export`: read what the store holds."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated

import typer
from pydantic import ValidationError
from rich.markup import escape

from ..domains import DomainSpec, get_domain
from ..errors import SessionproofError, StoreError
from ..importers import import_file
from ..records import Scenario, Session
from ..report import (
    pct,
    render_definitions,
    render_metric_definitions,
    render_metrics,
    render_summary,
    render_table,
    render_transcript,
)
from ..scoring import ALL_METRIC_DEFINITIONS, run_metrics, summarize
from ..store import DEFAULT_STORE_PATH, RunManifest, Store
from ..suites import load_suite
from ._app import app, err_console, out_console

StoreOpt = Annotated[Path, typer.Option(help="DuckDB store file.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON.")]


def _open(path: Path) -> Store:
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
    with _open(store) as db:
        listed = list(reversed(db.list_runs()))
    if as_json:
        typer.echo(json.dumps([r.model_dump(mode="json") for r in listed], indent=2))
        return
    rows = [
        [
            r.run_id,
            r.created_at[:19],
            r.command,
            r.suite,
            r.model,
            f"{r.sessions_done}/{r.sessions_expected}",
            pct(r.accuracy),
            str(r.infra_errors),
            r.status,
        ]
        for r in listed
    ]
    cols = ["run", "created", "cmd", "suite", "model", "sessions", "accuracy", "infra", "status"]
    render_table(out_console, f"runs in {store}", cols, rows)


@app.command("show")
def show(
    run_id: Annotated[str, typer.Argument(help="Run id (a unique prefix is enough).")],
    session: Annotated[str | None, typer.Option(help="Show one session's transcript.")] = None,
    store: StoreOpt = DEFAULT_STORE_PATH,
    as_json: JsonOpt = False,
    metrics: Annotated[
        bool,
        typer.Option(
            "--metrics",
            help="Every metric with its definition: session accuracy (Wilson and bootstrap "
            "CIs), pass^k and pass@k, flakiness, single-call accuracy and validity, error "
            "recovery by class, survival by decision depth, first divergence, failure sources.",
        ),
    ] = False,
) -> None:
    """A run's summary, or one session's transcript with `--session`, or `--metrics`."""
    with _open(store) as db:
        manifest = db.get_run(run_id)
        if metrics and not session:
            _show_metrics(manifest, db.load_sessions(manifest.run_id), as_json)
            return
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
    summary = summarize(rows)
    if as_json:
        payload = {"manifest": manifest.model_dump(mode="json"), **summary.model_dump(mode="json")}
        typer.echo(json.dumps(payload, indent=2))
        return
    out_console.print(
        f"[bold]{manifest.run_id}[/] {escape(manifest.command)} suite={escape(manifest.suite)} "
        f"model={escape(manifest.model)} seed={manifest.seed} trials={manifest.trials} "
        f"status={manifest.status}",
        highlight=False,
    )
    render_summary(out_console, "summary", summary)
    table_rows = [
        [
            r.session_id,
            r.arm,
            "n/a" if r.success is None else ("pass" if r.success else "fail"),
            r.termination,
            str(r.n_steps),
            str(r.n_tool_calls),
            str(r.n_tool_errors),
        ]
        for r in rows
    ]
    cols = ["session", "arm", "verdict", "termination", "steps", "calls", "errors"]
    render_table(out_console, "sessions", cols, table_rows)
    render_definitions(out_console)


_DomainFor = Callable[[Scenario], DomainSpec]


def _by_domain_name(scenario: Scenario) -> DomainSpec:
    return get_domain(scenario.domain)


def _scenarios_for(
    manifest: RunManifest, sessions: Sequence[Session]
) -> tuple[dict[str, Scenario], _DomainFor, str]:
    """The scenarios a stored run's sessions ran (or were graded) against, how to get their
    domains, and where they came from (or why there are none)."""
    embedded: dict[str, Scenario] = {}
    for s in sessions:
        raw = s.metadata.get("scenario")
        if isinstance(raw, dict):
            try:
                embedded[s.scenario_id] = Scenario.model_validate(raw)
            except ValidationError:
                continue
    if embedded:
        return embedded, _by_domain_name, "embedded in the stored sessions"
    if manifest.command in ("score", "import", "rerun"):
        # Runs made from a transcript file name that file as their suite; the scenarios (the
        # tasks the transcripts were graded against) live in it.
        path = Path(manifest.suite)
        if not path.is_file():
            return {}, _by_domain_name, f"the transcript file {path} is no longer there"
        fmt = str(manifest.options.get("format") or "auto")
        domain = manifest.options.get("domain")
        try:
            result = import_file(
                path,
                fmt,
                run_id=manifest.run_id,
                domain=domain if isinstance(domain, str) else None,
            )
        except SessionproofError as exc:
            return {}, _by_domain_name, f"re-reading {path} failed: {exc}"
        found = {i.scenario.id: i.scenario for i in result.sessions if i.scenario is not None}
        return found, _by_domain_name, f"re-read from {path}"
    try:
        suite = load_suite(manifest.suite).limited(manifest.limit)
    except SessionproofError as exc:
        return {}, _by_domain_name, f"suite {manifest.suite!r} cannot be loaded: {exc}"
    note = f"suite {manifest.suite}"
    if manifest.suite_hash and suite.content_hash() != manifest.suite_hash:
        note += " (changed since the run: metrics use its current scenarios)"
    return {s.id: s for s in suite.scenarios}, suite.domain_for, note


def _show_metrics(manifest: RunManifest, sessions: list[Session], as_json: bool) -> None:
    scenarios, domain_for, source = _scenarios_for(manifest, sessions)
    arms = [a for a in manifest.arms if any(s.arm == a for s in sessions)]
    arms += sorted({s.arm for s in sessions} - set(arms))
    reports = {
        arm: run_metrics([s for s in sessions if s.arm == arm], scenarios, domain_for)
        for arm in arms
    }
    if as_json:
        payload = {
            "run_id": manifest.run_id,
            "command": manifest.command,
            "suite": manifest.suite,
            "model": manifest.model,
            "scenarios": {"source": source, "available": len(scenarios)},
            "arms": {
                arm: report.model_dump(mode="json", exclude={"definitions"})
                for arm, report in reports.items()
            },
            "definitions": ALL_METRIC_DEFINITIONS,
        }
        typer.echo(json.dumps(payload, indent=2))
        return
    out_console.print(
        f"[bold]{manifest.run_id}[/] {escape(manifest.command)} suite={escape(manifest.suite)} "
        f"model={escape(manifest.model)} sessions={len(sessions)}",
        highlight=False,
    )
    out_console.print(f"scenarios: {escape(source)} ({len(scenarios)} found)", highlight=False)
    for arm, report in reports.items():
        render_metrics(out_console, report, f"arm {arm}", definitions=False)
    render_metric_definitions(out_console, ALL_METRIC_DEFINITIONS)


@app.command("export")
def export(
    out: Annotated[Path, typer.Argument(help="Directory for sessions.parquet and events.parquet.")],
    run_id: Annotated[str | None, typer.Option(help="Only this run.")] = None,
    store: StoreOpt = DEFAULT_STORE_PATH,
) -> None:
    """Export sessions and events to Parquet."""
    with _open(store) as db:
        paths = db.export_parquet(out, run_id=run_id)
    for p in paths:
        typer.echo(str(p))
