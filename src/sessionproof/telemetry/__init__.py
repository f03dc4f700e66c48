"""Telemetry: sessions as OpenTelemetry GenAI traces, out (OTLP-JSON, OTLP protobuf,
OTLP/HTTP) and back in (our traces exactly; anyone's `gen_ai.*` or OpenInference traces as
far as their attributes go). Layer: above `patterns`, below `report`.
"""

from ._compat import COMPATS
from ._live import LiveExport
from ._otlp import (
    export_request,
    otlp_json,
    otlp_proto,
    parse_headers,
    send,
    traces_url,
    write_file,
)
from ._readable import session_spans
from ._rebuild import read_otlp, read_otlp_json, read_otlp_proto
from ._spans import default_resource, otlp_spans
from ._usecases import EXPORT_FORMATS, TraceImport, export_traces, import_traces, run_spans

__all__ = [
    "COMPATS",
    "EXPORT_FORMATS",
    "LiveExport",
    "TraceImport",
    "default_resource",
    "export_request",
    "export_traces",
    "import_traces",
    "otlp_json",
    "otlp_proto",
    "otlp_spans",
    "parse_headers",
    "read_otlp",
    "read_otlp_json",
    "read_otlp_proto",
    "run_spans",
    "send",
    "session_spans",
    "traces_url",
    "write_file",
]
