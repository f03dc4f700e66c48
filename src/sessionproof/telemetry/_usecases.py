"""A stored run as OTLP: its request (what `runs.export_traces` writes and sends) and its spans.

The use cases themselves (`export_traces`, `import_traces`) live in `sessionproof.runs`."""

from __future__ import annotations

from pathlib import Path

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan

from ..errors import StoreError
from ..scoring._internal import PriceTable, shipped_prices
from ..store import Store
from ..store._internal import DEFAULT_STORE_PATH
from ..suites._internal import recorded_suite
from . import _names as n
from ._compat import check_compat
from ._evals import Scenarios
from ._otlp import new_request, request_spans
from ._readable import readable_span
from ._spans import add_spans, default_resource

EXPORT_FORMATS = ("otlp-json", "otlp-proto")
"""The trace file formats `write_file` writes (and `runs.export_traces` offers)."""


def run_request(
    run_id: str,
    store: str | Path,
    content: bool,
    compat: str | None,
    prices: PriceTable | None = None,
) -> tuple[str, ExportTraceServiceRequest, Resource]:
    """The full run id, the OTLP request of every session of a stored run, and its resource
    (`prices`: what prices the cost attributes; None: the shipped table)."""
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
    table = prices if prices is not None else shipped_prices()  # read once for the run
    for session in sessions:
        evaluations = scenarios.evaluations(session)
        add_spans(
            spans,
            session,
            content=content,
            evaluations=evaluations,
            compat=compat,
            prices=table,
        )
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
    full_id, request, resource = run_request(run_id, store, content, compat)
    spans = request.resource_spans[0].scope_spans[0].spans
    return full_id, [readable_span(span, resource) for span in spans]
