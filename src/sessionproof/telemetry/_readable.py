"""Our OTLP spans as the SDK's `ReadableSpan`s: what `session_spans` and `run_spans` return,
for code that reads spans through the OpenTelemetry SDK (or hands them to its exporters).

The SDK's encoder turns these back into exactly the messages `_spans` built.
"""

from __future__ import annotations

from collections.abc import Sequence

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.trace.v1.trace_pb2 import Span
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import Event as SpanEvent
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.trace import SpanContext, SpanKind, Status, StatusCode, TraceFlags

from ..records import Session
from ._attrs import plain_attrs
from ._evals import Evaluation
from ._otlp import SCOPE
from ._spans import CLIENT, INTERNAL, default_resource, otlp_spans

_KIND = {INTERNAL: SpanKind.INTERNAL, CLIENT: SpanKind.CLIENT}
_SAMPLED = TraceFlags(TraceFlags.SAMPLED)


def readable_span(span: Span, resource: Resource) -> ReadableSpan:
    """`span` as the SDK's read-only span, carrying `resource`."""
    trace_id = int.from_bytes(span.trace_id, "big")
    context = SpanContext(trace_id, int.from_bytes(span.span_id, "big"), False, _SAMPLED)
    parent = None
    if span.parent_span_id:
        parent_id = int.from_bytes(span.parent_span_id, "big")
        parent = SpanContext(trace_id, parent_id, False, _SAMPLED)
    code = StatusCode(span.status.code)
    return ReadableSpan(
        name=span.name,
        context=context,
        parent=parent,
        resource=resource,
        attributes=plain_attrs(span.attributes),
        events=[
            SpanEvent(e.name, plain_attrs(e.attributes), e.time_unix_nano) for e in span.events
        ],
        kind=_KIND[span.kind],
        status=Status(code, span.status.message or None),
        start_time=span.start_time_unix_nano,
        end_time=span.end_time_unix_nano,
        instrumentation_scope=SCOPE,
    )


def request_readable(request: ExportTraceServiceRequest) -> list[ReadableSpan]:
    """The spans of an OTLP request (one of ours: our scope) as the SDK's spans."""
    out: list[ReadableSpan] = []
    for batch in request.resource_spans:
        resource = Resource(plain_attrs(batch.resource.attributes), batch.schema_url or None)
        for scoped in batch.scope_spans:
            out.extend(readable_span(span, resource) for span in scoped.spans)
    return out


def session_spans(
    session: Session,
    *,
    content: bool = False,
    resource: Resource | None = None,
    evaluations: Sequence[Evaluation] = (),
    compat: str | None = None,
) -> list[ReadableSpan]:
    """The spans of one stored session (see `_spans`), as the SDK's `ReadableSpan`s; content
    only if asked; `evaluations` (the session's metrics, `_evals`) as evaluation events;
    `compat` (`openinference` or `langfuse`) adds the attributes that tool reads (`_compat`)."""
    spans = otlp_spans(session, content=content, evaluations=evaluations, compat=compat)
    resource = resource or default_resource()
    return [readable_span(span, resource) for span in spans]
