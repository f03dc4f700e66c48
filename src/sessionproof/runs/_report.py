"""The report and compare use cases: stored runs → one HTML page; two runs → paired metrics."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from .._atomic import write_atomic
from .._gc import tuned_gc
from ..errors import InputFileError, SessionproofError
from ..importers import import_file
from ..patterns import MineOptions, mine
from ..patterns._internal import Granularity
from ..report.html._internal import Comparison, Original, ReportRun, compare_sessions, render_html
from ..scoring import MetricsReport
from ..scoring._internal import CostSummary, PriceTable, SessionSurvival, TraceCache
from ..store import RunManifest, Store
from ..store._internal import DEFAULT_STORE_PATH
from ..suites import Suite
from ._metrics import _reading, metrics, metrics_of, scenarios_for
from ._vary import report_splits

REPORT_NAME = "report.html"
"""The file `report` wrote beside the store before reports had their own folder (kept for
code that imports it; nothing writes it now)."""
REPORTS_SUFFIX = "-reports"
"""Reports go to one folder beside the store, named after it: `runs-reports/` for
`runs.duckdb` (`.sessionproof/store-reports/` for the default store)."""
MINED_AT = Granularity.outcome
"""The granularity the report mines sessions at (a run makes their tokens at it early)."""


def reports_folder(store: str | Path) -> Path:
    """The one folder beside `store` that reports go to (made when a report is written)."""
    path = Path(store)
    return path.parent / f"{path.stem}{REPORTS_SUFFIX}"


def default_report_path(store: str | Path, run_ids: str | Sequence[str]) -> Path:
    """Where a report goes unless told: `RUN.html` in the store's reports folder (the runs'
    ids joined by `+` for a report of several). `run`, `score` and `rerun` write theirs
    there."""
    ids = [run_ids] if isinstance(run_ids, str) else list(run_ids)
    return reports_folder(store) / f"{'+'.join(ids)}.html"


def _originals(manifest: RunManifest) -> tuple[dict[str, Original] | None, str]:
    """A rerun's transcripts read again from its file, by the scenario id each rerun ran, with
    their original verdicts as `rerun` found them; or None and why not."""
    path = Path(manifest.suite)
    if not path.is_file():
        return None, f"the transcript file {path} is no longer there"
    domain = manifest.options.get("domain")
    from ..rerun._internal import (
        plan_reruns,  # a rerun's report only: a run's or a score's needs none
    )

    try:
        result = import_file(
            path,
            str(manifest.options.get("format") or "auto"),
            run_id=manifest.run_id,
            domain=domain if isinstance(domain, str) else None,
        )
        items, _ = plan_reruns(
            result, domain=domain if isinstance(domain, str) else None, limit=manifest.limit
        )
    except SessionproofError as exc:
        return None, f"re-reading {path} failed: {exc}"
    return {
        i.scenario.id: Original(i.transcript_id, i.transcript.session.scenario_id, i.original)
        for i in items
    }, ""


def _load(
    run_id: str,
    db: Store,
    loaded: Suite | None = None,
    traces: TraceCache | None = None,
    prices: PriceTable | None = None,
    costs: Mapping[str, CostSummary] | None = None,
) -> ReportRun:
    manifest = db.get_run(run_id)
    sessions = db.load_sessions(manifest.run_id)
    # The scenarios once, for the metrics and for mining (a suite's files read again and its
    # scenarios validated again otherwise).
    found = scenarios_for(manifest, sessions, loaded)
    m = metrics_of(manifest, sessions, found, traces, prices=prices, costs=costs)
    run = ReportRun(
        run_id=m.run_id,
        command=m.command,
        suite=m.suite,
        model=m.model,
        arms=dict(m.arms),
        sessions=sessions,
        notes=[f"{m.run_id}: scenarios {m.scenarios.source}"],
        traces=traces,
        costs=dict(m.costs),
    )
    scenarios, domain_for, _ = found
    run.scenarios = dict(scenarios)
    if manifest.command == "rerun":
        run.originals, run.originals_note = _originals(manifest)
    try:
        # The page shows findings and advice, not the risk model: skip its cross-validation,
        # most of mining's time (21 s of 26 s on the 40 tau2 retail sessions).
        opts = MineOptions(early_warning=False)
        walked = _survival(m.arms.values())  # the metrics' walks, for the precursors
        run.patterns = mine(sessions, opts, MINED_AT, scenarios, domain_for, None, walked, traces)
    except SessionproofError as exc:
        # Too few sessions (or failures) to mine is a normal state of a small run.
        run.patterns_note = str(exc)
    return run


def compare(run_a: str, run_b: str, store: str | Path | Store = DEFAULT_STORE_PATH) -> Comparison:
    """Run B against run A: paired differences per metric with bootstrap intervals, exact
    McNemar p and the pairs needed, on their shared scenario × trial pairs."""
    with _reading(store) as db:
        a, b = _load_light(run_a, db), _load_light(run_b, db)
    return _compare(a, b)


def _audit_into(run: ReportRun, store: str | Path | Store) -> None:
    """`run.audit`: the audit of the suite `run` ran, or a note saying why there is none."""
    from ._audit import audit as audit_suite

    try:
        found = audit_suite(
            run.suite, store=Path(store.path) if isinstance(store, Store) else store
        )
    except SessionproofError as exc:
        run.notes.append(f"audit of {run.suite}: not possible ({exc})")
        return
    run.audit = found.model_dump(mode="json")


def _load_light(run_id: str, db: Store) -> ReportRun:
    m = metrics(run_id, db)
    return ReportRun(
        m.run_id, m.command, m.suite, m.model, dict(m.arms), db.load_sessions(m.run_id)
    )


def _survival(arms: Iterable[MetricsReport]) -> dict[str, SessionSurvival]:
    """Session id → its survival, over the arms' metrics."""
    return {
        s.session_id: s
        for arm in arms
        if arm.survival is not None
        for s in arm.survival.per_session
    }


def _compare(a: ReportRun, b: ReportRun) -> Comparison:
    # Keyed by run too: two runs of one suite name their sessions alike ("3.t0").
    surv = {
        (run.run_id, sid): s for run in (a, b) for sid, s in _survival(run.arms.values()).items()
    }
    return compare_sessions(a.run_id, a.sessions, b.run_id, b.sessions, surv)


def report(
    run_ids: Sequence[str],
    output: str | Path | None = None,
    store: str | Path | Store = DEFAULT_STORE_PATH,
    *,
    suite: Suite | None = None,
    traces: TraceCache | None = None,
    prices: PriceTable | None = None,
    costs: Mapping[str, CostSummary] | None = None,
    audit: bool = False,
) -> Path:
    """Write the HTML report of the stored runs `run_ids` (ids or unique prefixes) to
    `output` (default: `default_report_path`, in the folder beside the store) and return its
    path; a missing folder is made. Two or more runs add the paired comparison of the first
    two.

    `suite`: the suite the first run ran, as it ran it, when the caller holds it (a run
    reporting on itself); its scenarios are then not loaded again. `traces`: what was made
    of the first run's sessions as they ended (its `MetricsWarmer.traces`). `prices`: what
    prices each arm's cost (default: the shipped table); `costs`: the first run's arms'
    costs, when the caller priced them already with `prices`. `audit`: add the audit of the
    first run's suite (`audit`, with this store's runs) as a section; a suite that cannot be
    audited (imported traces, a project not found) is said in the report's notes."""
    if not run_ids:
        raise InputFileError("name at least one run id")
    with tuned_gc():
        with _reading(store) as db:
            runs = [
                _load(r, db, suite, traces, prices, costs)
                if i == 0
                else _load(r, db, prices=prices)
                for i, r in enumerate(run_ids)
            ]
            splits, why_not = report_splits(db, [r.run_id for r in runs])
        runs[0].variance_split = splits
        if why_not:
            runs[0].notes.append(why_not)
        if audit:
            _audit_into(runs[0], store)
        compared = _compare(runs[0], runs[1]) if len(runs) > 1 else None
        page = render_html(runs, compared)
    if output is None:
        base = Path(store.path) if isinstance(store, Store) else Path(store)
        output = default_report_path(base, [r.run_id for r in runs])
    path = Path(output)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # Beside the file, then renamed over it: a failed write keeps the earlier report.
        write_atomic(path, page.encode("utf-8"))
    except OSError as exc:
        raise InputFileError(f"cannot write the report to {path}: {exc.strerror}") from exc
    return path
