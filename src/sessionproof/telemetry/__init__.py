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
    from ._live import LiveExport
    from ._otlp import send
    from ._readable import session_spans
    from ._rebuild import read_otlp
    from ._usecases import run_spans


_MODULE_OF: dict[str, str] = {
    "LiveExport": "._live",
    "read_otlp": "._rebuild",
    "run_spans": "._usecases",
    "send": "._otlp",
    "session_spans": "._readable",
}
"""Each public name -> the submodule that defines it."""

__all__ = [
    "LiveExport",
    "read_otlp",
    "run_spans",
    "send",
    "session_spans",
]


__getattr__, __dir__ = lazy_exports(__name__, _MODULE_OF)
