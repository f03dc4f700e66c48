"""The trace formats `import` and `score` read, as `sessionproof.formats` plug-ins.

Registered through sessionproof's own entry points (the importers are a lower layer and never
name this package): OTLP-JSON and OTLP protobuf trace requests, with the sniffs that tell them.
"""

from __future__ import annotations

import re

from ..importers import Sample, TranscriptFormat
from ._proto_sniff import looks_like_otlp_proto

_OTLP_START = re.compile(rb'\s*\{\s*"resourceSpans"\s*:')
"""How an OTLP-JSON request begins (as our export and the collector's file exporter write it)."""
_HEAD = 4096


def _is_otlp_json(sample: Sample) -> float:
    if _OTLP_START.match(sample.raw, 0, _HEAD):
        return 1.0  # said at once: the first line may be the whole (huge) file
    # The key further in: likely, but a chat log or a results file that says so wins.
    return 0.8 if sample.head == b"{" and b'"resourceSpans"' in sample.raw[:_HEAD] else 0.0


def _is_otlp_proto(sample: Sample) -> float:
    # Asked last: a protobuf request starts with a newline byte, and may then look like JSON.
    return 0.5 if sample.raw[:1] == b"\n" and looks_like_otlp_proto(sample.raw) else 0.0


OTLP_JSON = TranscriptFormat(
    "sessionproof.telemetry._rebuild:read_otlp_json",
    sniff=_is_otlp_json,
    labels=True,
    shape='OTLP-JSON traces ({"resourceSpans": [...]})',
    order=10,
)
"""OTLP-JSON trace requests (our `export`, a collector's file exporter)."""

OTLP_PROTO = TranscriptFormat(
    "sessionproof.telemetry._rebuild:read_otlp_proto",
    sniff=_is_otlp_proto,
    labels=True,
    shape="OTLP protobuf traces",
    order=90,
)
"""OTLP protobuf trace requests (`ExportTraceServiceRequest`)."""
