"""Spans out: OTLP-JSON files, OTLP protobuf files, and OTLP/HTTP to a collector.

Encoding is the OpenTelemetry exporter's own (`encode_spans`), so a file holds exactly what the
HTTP exporter would send. OTLP-JSON differs from protobuf's JSON mapping in its ids (hex, not
base64) and its enums (integers); both are fixed here.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from google.protobuf.json_format import MessageToDict
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExportResult

from ..errors import ConfigError, InfraError, InputFileError

_ID_KEYS = ("traceId", "spanId", "parentSpanId")


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


def otlp_json(spans: Sequence[ReadableSpan]) -> dict[str, Any]:
    """The OTLP-JSON document (`{"resourceSpans": [...]}`) of `spans`."""
    doc: dict[str, Any] = MessageToDict(encode_spans(spans), use_integers_for_enums=True)
    _hex_ids(doc)
    return doc


def otlp_proto(spans: Sequence[ReadableSpan]) -> bytes:
    """The OTLP protobuf `ExportTraceServiceRequest` of `spans`."""
    data: bytes = encode_spans(spans).SerializeToString()
    return data


def write_file(spans: Sequence[ReadableSpan], path: Path, fmt: str) -> None:
    """Write `spans` to `path` as `otlp-json` or `otlp-proto`."""
    data = json.dumps(otlp_json(spans)).encode() if fmt == "otlp-json" else otlp_proto(spans)
    try:
        path.write_bytes(data)
    except OSError as exc:
        raise InputFileError(f"{path}: cannot write: {exc.strerror or exc}") from None


def parse_headers(pairs: Sequence[str]) -> dict[str, str]:
    """`K=V` strings as a header dict; raises ConfigError on one without `=`."""
    headers: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--otlp-header must be KEY=VALUE, got {pair!r}")
        headers[key.strip()] = value.strip()
    return headers


def traces_url(endpoint: str) -> str:
    """The traces URL of an OTLP/HTTP endpoint: a base URL gets `/v1/traces` appended (as the
    OTEL_EXPORTER_OTLP_ENDPOINT variable is read); a URL already ending in it is kept."""
    if not endpoint.startswith(("http://", "https://")):
        raise ConfigError(f"--otlp-endpoint must be an http(s) URL, got {endpoint!r}")
    base = endpoint.rstrip("/")
    return base if base.endswith("/v1/traces") else base + "/v1/traces"


def send(
    spans: Sequence[ReadableSpan],
    endpoint: str | None,
    headers: Mapping[str, str] | None = None,
    timeout_s: float | None = None,
) -> None:
    """Send `spans` by OTLP/HTTP protobuf. `endpoint` None: the OTEL_EXPORTER_OTLP_* variables
    decide (the exporter reads them); headers given here add to theirs."""
    # Imported here: the HTTP exporter pulls in requests, which only a send needs.
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    exporter = OTLPSpanExporter(
        endpoint=None if endpoint is None else traces_url(endpoint),
        headers=dict(headers) if headers else None,
        timeout=timeout_s,
    )
    try:
        result = exporter.export(list(spans))
    finally:
        exporter.shutdown()  # type: ignore[no-untyped-call]
    if result is not SpanExportResult.SUCCESS:
        where = endpoint or "the OTEL_EXPORTER_OTLP_* endpoint"
        raise InfraError(f"OTLP export to {where} failed (see the exporter's log)")
