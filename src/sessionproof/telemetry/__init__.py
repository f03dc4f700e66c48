"""Telemetry: sessions as OpenTelemetry GenAI traces, out (OTLP-JSON, OTLP protobuf,
OTLP/HTTP) and back in (our traces exactly; anyone's `gen_ai.*` or OpenInference traces as
far as their attributes go). Layer: above `patterns`, below `report`.

The names below are imported on first use (PEP 562): a command or the live export's worker
loads the submodules it uses, not all of them (the trace readers, the rebuilder and the use
cases cost every command ~0.1 s of start-up when the CLI named one of them).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
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
    from ._rebuild import read_otlp, read_otlp_json, read_otlp_proto, read_otlp_run
    from ._spans import default_resource, otlp_spans
    from ._usecases import EXPORT_FORMATS, run_request, run_spans
    from ._verdict_send import send_run_verdicts

_MODULE_OF: dict[str, str] = {
    "COMPATS": "._compat",
    "LiveExport": "._live",
    "export_request": "._otlp",
    "otlp_json": "._otlp",
    "otlp_proto": "._otlp",
    "parse_headers": "._otlp",
    "send": "._otlp",
    "traces_url": "._otlp",
    "write_file": "._otlp",
    "session_spans": "._readable",
    "read_otlp": "._rebuild",
    "read_otlp_json": "._rebuild",
    "read_otlp_proto": "._rebuild",
    "read_otlp_run": "._rebuild",
    "default_resource": "._spans",
    "otlp_spans": "._spans",
    "EXPORT_FORMATS": "._usecases",
    "run_request": "._usecases",
    "run_spans": "._usecases",
    "send_run_verdicts": "._verdict_send",
}
"""Each public name -> the submodule that defines it."""

__all__ = [
    "COMPATS",
    "EXPORT_FORMATS",
    "LiveExport",
    "default_resource",
    "export_request",
    "otlp_json",
    "otlp_proto",
    "otlp_spans",
    "parse_headers",
    "read_otlp",
    "read_otlp_json",
    "read_otlp_proto",
    "read_otlp_run",
    "run_request",
    "run_spans",
    "send",
    "send_run_verdicts",
    "session_spans",
    "traces_url",
    "write_file",
]


__getattr__, __dir__ = lazy_exports(__name__, _MODULE_OF)
