"""The telemetry use cases: export a stored run as traces; import trace files as a run."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan
from pydantic import BaseModel, ConfigDict, Field

from ..errors import ConfigError, InputFileError, StoreError
from ..importers import (
    LabelRule,
    RecordError,
    detect_format,
    import_file,
    label_rule,
    nothing_imported,
    without_bom,
    write_imported,
)
from ..scoring import RunSummary, first_summary, summaries_by_arm
from ..store import DEFAULT_STORE_PATH, RunManifest, Store, new_run_id, recorded_run
from ..suites import recorded_suite
from . import _names as n
from ._compat import check_compat
from ._evals import Scenarios
from ._otlp import new_request, request_spans, send, write_file
from ._readable import readable_span
from ._rebuild import read_otlp_run
from ._spans import add_spans, default_resource
from ._verdict_send import send_run_verdicts

EXPORT_FORMATS = ("otlp-json", "otlp-proto")
"""The trace file formats `export_traces` writes."""


def _run_request(
    run_id: str, store: str | Path, content: bool, compat: str | None
) -> tuple[str, ExportTraceServiceRequest, Resource]:
    """The full run id, the OTLP request of every session of a stored run, and its resource."""
    check_compat(compat)
    path = Path(store)
    if not path.exists():
        raise StoreError(f"no store at {path}; run `sessionproof run` first or pass --store")
    with Store.open_for_reading(path) as db:
        manifest = db.get_run(run_id)
        sessions = db.load_sessions(manifest.run_id)
    run: dict[str, str | int | list[str]] = {n.RUN_ID: manifest.run_id, n.RUN_SUITE: manifest.suite}
    if manifest.limit is not None:
        run[n.RUN_LIMIT] = manifest.limit
    if manifest.arms:
        run[n.RUN_ARMS] = list(manifest.arms)
    resource = default_resource().merge(Resource(run))
    # Import, score and rerun runs name a file (a trace's claim, a transcript): only
    # embedded scenarios, or a built-in suite; a user's suite only for the run that ran it.
    scenarios = Scenarios(recorded_suite(manifest.command, manifest.suite))
    request = new_request(resource)
    spans = request_spans(request)
    for session in sessions:
        evaluations = scenarios.evaluations(session)
        add_spans(spans, session, content=content, evaluations=evaluations, compat=compat)
    return manifest.run_id, request, resource


def run_spans(
    run_id: str,
    *,
    store: str | Path = DEFAULT_STORE_PATH,
    content: bool = False,
    compat: str | None = None,
) -> tuple[str, list[ReadableSpan]]:
    """The full run id and the spans of every session of a stored run, each session's
    metrics among them (`gen_ai.evaluation.result` events); `compat` adds Phoenix's
    (`openinference`) or Langfuse's (`langfuse`) attributes."""
    full_id, request, resource = _run_request(run_id, store, content, compat)
    spans = request.resource_spans[0].scope_spans[0].spans
    return full_id, [readable_span(span, resource) for span in spans]


def export_traces(
    run_id: str,
    *,
    store: str | Path = DEFAULT_STORE_PATH,
    fmt: str = "otlp-json",
    output: str | Path | None = None,
    endpoint: str | None = None,
    headers: Mapping[str, str] | None = None,
    content: bool = False,
    use_env: bool = False,
    compat: str | None = None,
) -> int:
    """Export a stored run's sessions as OpenTelemetry GenAI traces: to `output` (an OTLP file
    of `fmt`), to the OTLP/HTTP `endpoint`, or (`use_env`) where the OTEL_EXPORTER_OTLP_*
    variables say. Message text, arguments and results only with `content`; `compat`
    (`openinference` | `langfuse`) adds the attributes Phoenix or Langfuse read, and files each
    session's verdict there (Phoenix annotations, Langfuse scores). Returns the span count."""
    if fmt not in EXPORT_FORMATS:
        raise ConfigError(f"--format must be one of {', '.join(EXPORT_FORMATS)}, not {fmt!r}")
    if output is None and endpoint is None and not use_env:
        raise ConfigError("say where the traces go: -o FILE and/or --otlp-endpoint URL")
    full_id, request, _ = _run_request(run_id, store, content, compat)
    if output is not None:
        write_file(request, Path(output), fmt)
    if endpoint is not None or use_env:
        send(request, endpoint, headers)
        send_run_verdicts(full_id, store, compat, endpoint, headers)
    return len(request.resource_spans[0].scope_spans[0].spans)


class TraceImport(BaseModel):
    """What `sessionproof import` reports: the new run, its summary, and every problem."""

    model_config = ConfigDict(extra="forbid")

    run_id: str
    source: str
    format: str
    summary: RunSummary
    """The first arm's summary (the whole import's when its sessions name one arm)."""
    summary_by_arm: dict[str, RunSummary] = Field(default_factory=dict)
    """Arm → its summary (a trace of a multi-arm run keeps its arms apart)."""
    errors: list[RecordError] = Field(default_factory=list)
    store: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The `--json` object: the run id, `arms` (arm → its summary; with one arm its
        numbers are also at the top level, with several they are never pooled there),
        skipped and warnings."""
        one = len(self.summary_by_arm) <= 1
        return {
            "run_id": self.run_id,
            "source": self.source,
            "format": self.format,
            **(self.summary.model_dump(mode="json") if one else {}),
            "arms": {a: s.model_dump(mode="json") for a, s in self.summary_by_arm.items()},
            "skipped": [str(e) for e in self.errors if e.fatal],
            "warnings": [str(e) for e in self.errors if not e.fatal],
            "store": self.store,
        }


def import_traces(
    path: str | Path,
    *,
    fmt: str = "auto",
    store: str | Path | None = DEFAULT_STORE_PATH,
    domain: str | None = None,
    argv: Sequence[str] | None = None,
    label_from: str | LabelRule | None = None,
) -> TraceImport:
    """Read a trace or transcript file (any format the importers know) into a new `import` run
    in `store` (None: not stored), keeping each session's own verdict, or (`label_from`, a
    trace, ATIF or inspect file) taking each session's outcome from the label it names."""
    rule = label_rule(label_from)
    run_id = new_run_id()
    source = Path(path)
    fmt = _otlp_format(source, fmt)
    suite, limit, arms = str(source.resolve()), None, list[str]()
    if fmt in EXPORT_FORMATS:
        # Read here, not through import_file: the run's own suite rides on the resource.
        result, info = read_otlp_run(
            _trace_bytes(source),
            source=str(path),
            run_id=run_id,
            domain=domain,
            fmt=fmt,
            label_from=rule,
        )
        suite = info.suite or suite
        limit, arms = info.limit, info.arms
    else:
        result = import_file(source, fmt, run_id=run_id, domain=domain, label_from=rule)
    if not result.sessions:  # nothing is stored: say what the file held instead
        raise InputFileError(nothing_imported(str(path), result))
    sessions = [item.session for item in result.sessions]
    rows: Sequence[Any] = sessions
    if store is not None and sessions:
        manifest = RunManifest(
            run_id=run_id,
            command="import",
            suite=suite,
            limit=limit,
            arms=arms,
            model=", ".join(sorted({s.model for s in sessions if s.model})),
            scenario_ids=sorted({s.scenario_id for s in sessions}),
            options={"format": result.format, "domain": domain}
            | ({"label_from": str(rule)} if rule is not None else {}),
            argv=list(argv or []),
        )
        with Store.open(Path(store)) as db, recorded_run(db, manifest, on_error="failed"):
            write_imported(db, result)  # a session the store cannot hold is skipped by name
            rows = db.session_rows(run_id)
    by_arm = summaries_by_arm(rows, arms)
    return TraceImport(
        run_id=run_id,
        source=str(path),
        format=result.format,
        summary=first_summary(by_arm),
        summary_by_arm=by_arm,
        errors=list(result.errors),
        store=None if store is None else str(store),
    )


def _trace_bytes(path: Path) -> bytes:
    """The file's bytes; InputFileError (one line) when it cannot be read or is empty, as
    `import_file` says it for every other format."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputFileError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if not raw.strip():
        raise InputFileError(f"{path}: the file is empty")
    return raw


def _otlp_format(path: Path, fmt: str) -> str:
    """`fmt`, or (auto) the detected format when the file is OTLP-JSON."""
    if fmt != "auto":
        return fmt
    try:
        raw = without_bom(path.read_bytes())
    except OSError as exc:
        raise InputFileError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        return detect_format(raw)
    except InputFileError:
        return fmt  # import_file names the problem
