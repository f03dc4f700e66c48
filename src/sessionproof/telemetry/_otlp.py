"""Spans out: OTLP-JSON files, OTLP protobuf files, and OTLP/HTTP to a collector.

Our spans are `opentelemetry.proto` messages already (`_spans`); `export_request` puts them
under their resource and scope as the SDK's encoder (`encode_spans`) groups a batch, which
still encodes the SDK's `ReadableSpan`s handed to these functions. So a file holds exactly what
is sent. OTLP-JSON differs from protobuf's JSON mapping in its ids (hex, not base64) and its
enums (integers); both are fixed here.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from google.protobuf.json_format import MessageToDict
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import InstrumentationScope as ScopeMessage
from opentelemetry.proto.resource.v1.resource_pb2 import Resource as ResourceMessage
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.util.instrumentation import InstrumentationScope

from .._atomic import write_atomic
from .._secrets import register_header_secret
from .._version import __version__
from ..errors import ConfigError, InfraError, InputFileError
from ._attrs import key_values
from ._spans import SpanSink

if TYPE_CHECKING:
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

SCOPE = InstrumentationScope("sessionproof", __version__)
"""The instrumentation scope of our spans."""

Spans = Sequence[ReadableSpan] | ExportTraceServiceRequest
"""What the functions below take: the SDK's spans, or a request `export_request` built."""

_ID_KEYS = ("traceId", "spanId", "parentSpanId")


def resource_message(resource: Resource) -> ResourceMessage:
    """`resource` as OTLP protobuf (build it once: it is the same on every batch)."""
    fields: dict[str, Any] = {"attributes": key_values(resource.attributes)}
    return ResourceMessage(**fields)


def new_request(resource: Resource | ResourceMessage) -> ExportTraceServiceRequest:
    """An empty OTLP request for spans of `resource` and our scope, laid out as the SDK's
    encoder lays out a batch; its spans are `request_spans(request)`."""
    message = resource if isinstance(resource, ResourceMessage) else resource_message(resource)
    scope = ScopeMessage(name=SCOPE.name, version=SCOPE.version or "")
    schema_url = "" if isinstance(resource, ResourceMessage) else resource.schema_url
    scope_spans = ScopeSpans(scope=scope, schema_url=SCOPE.schema_url or "")
    resource_spans = ResourceSpans(
        resource=message, scope_spans=[scope_spans], schema_url=schema_url
    )
    return ExportTraceServiceRequest(resource_spans=[resource_spans])


def request_spans(request: ExportTraceServiceRequest) -> SpanSink:
    """The repeated span field of a `new_request`: `_spans.add_spans` builds into it."""
    spans: SpanSink = request.resource_spans[0].scope_spans[0].spans
    return spans


def export_request(
    spans: Sequence[Span], resource: Resource | ResourceMessage
) -> ExportTraceServiceRequest:
    """The OTLP request carrying (copies of) `spans`, all of `resource` and our scope."""
    request = new_request(resource)
    request.resource_spans[0].scope_spans[0].spans.extend(spans)
    return request


def _request(spans: Spans) -> ExportTraceServiceRequest:
    return spans if isinstance(spans, ExportTraceServiceRequest) else encode_spans(spans)


def _hex_ids(node: Any) -> None:
    if isinstance(node, dict):
        for key in _ID_KEYS:
            value = node.get(key)
            if isinstance(value, str) and value:
                node[key] = base64.b64decode(value).hex()
        for value in node.values():
            _hex_ids(value)
    elif isinstance(node, list):
        for value in node:
            _hex_ids(value)


def otlp_json(spans: Spans) -> dict[str, Any]:
    """The OTLP-JSON document (`{"resourceSpans": [...]}`) of `spans`."""
    doc: dict[str, Any] = MessageToDict(_request(spans), use_integers_for_enums=True)
    _hex_ids(doc)
    return doc


def otlp_proto(spans: Spans) -> bytes:
    """The OTLP protobuf `ExportTraceServiceRequest` of `spans`."""
    data: bytes = _request(spans).SerializeToString()
    return data


def write_file(spans: Spans, path: Path, fmt: str) -> None:
    """Write `spans` to `path` as `otlp-json` or `otlp-proto`, whole or not at all (beside
    it, then renamed over it: a failed write leaves an earlier file intact)."""
    data = json.dumps(otlp_json(spans)).encode() if fmt == "otlp-json" else otlp_proto(spans)
    try:
        write_atomic(path, data)
    except OSError as exc:
        raise InputFileError(f"{path}: cannot write: {exc.strerror or exc}") from None


def parse_headers(pairs: Sequence[str]) -> dict[str, str]:
    """`K=V` strings as a header dict; raises ConfigError on one without `=`. Every value is
    registered as a secret (`register_header_secret`)."""
    headers: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--otlp-header must be KEY=VALUE, got {pair!r}")
        headers[key.strip()] = value.strip()
        # A header sent to a collector is a credential as often as not: from now on its value
        # (and the token after `Bearer`/`Basic`) is redacted wherever it turns up.
        register_header_secret(value)
    return headers


def traces_url(endpoint: str) -> str:
    """The traces URL of an OTLP/HTTP endpoint: a base URL gets `/v1/traces` appended (as the
    OTEL_EXPORTER_OTLP_ENDPOINT variable is read); a URL already ending in it is kept."""
    if not endpoint.startswith(("http://", "https://")):
        raise ConfigError(f"--otlp-endpoint must be an http(s) URL, got {endpoint!r}")
    base = endpoint.rstrip("/")
    return base if base.endswith("/v1/traces") else base + "/v1/traces"


def exporter(
    endpoint: str | None,
    headers: Mapping[str, str] | None = None,
    timeout_s: float | None = None,
) -> OTLPSpanExporter:
    """The SDK's OTLP/HTTP protobuf span exporter for `endpoint`; None: the
    OTEL_EXPORTER_OTLP_* variables decide (the exporter reads them, as it reads their headers,
    timeout, compression and certificates); headers given here add to theirs, and their
    values are registered as secrets in this process (the live export's worker included)."""
    # Imported here: the HTTP exporter pulls in requests, which only a send needs.
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    for value in (headers or {}).values():
        register_header_secret(value)

    return OTLPSpanExporter(
        endpoint=None if endpoint is None else traces_url(endpoint),
        headers=dict(headers) if headers else None,
        timeout=timeout_s,
    )


def post(sender: OTLPSpanExporter, request: ExportTraceServiceRequest) -> bool:
    """Send one request by `sender` (its compression, retries with backoff, and timeout);
    True when the collector took it."""
    # The exporter's public `export` takes only the SDK's spans and re-encodes them in pure
    # Python, three times the CPU of our bytes. From 1.45 its HTTP client, which takes the
    # bytes, is an attribute; older exporters (and any later one without it) get the spans.
    export = getattr(getattr(sender, "_client", None), "export", None)
    if callable(export):
        return bool(export(request.SerializeToString()).success)
    return public_post(sender, request)


def public_post(sender: OTLPSpanExporter, request: ExportTraceServiceRequest) -> bool:
    """`post` through the exporter's public `export` (the same bytes reach the collector)."""
    from opentelemetry.sdk.trace.export import SpanExportResult

    from ._readable import request_readable  # it builds on this module

    return sender.export(request_readable(request)) is SpanExportResult.SUCCESS


def send(
    spans: Spans,
    endpoint: str | None,
    headers: Mapping[str, str] | None = None,
    timeout_s: float | None = None,
) -> None:
    """Send `spans` by OTLP/HTTP protobuf. `endpoint` None: the OTEL_EXPORTER_OTLP_* variables
    decide (the exporter reads them); headers given here add to theirs."""
    sender = exporter(endpoint, headers, timeout_s)
    try:
        sent = post(sender, _request(spans))
    finally:
        sender.shutdown()  # type: ignore[no-untyped-call]
    if not sent:
        where = endpoint or "the OTEL_EXPORTER_OTLP_* endpoint"
        raise InfraError(f"OTLP export to {where} failed (see the exporter's log)")
