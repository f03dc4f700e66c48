"""OTLP files → flat spans: OTLP-JSON (one document, or one per line) and OTLP protobuf.

Tolerant of what real files hold: hex or base64 ids, integers as strings or numbers, spans in
any order, fields we do not know. A span too broken to use is named and skipped.
"""

from __future__ import annotations

import base64
import binascii
import math
import sys
from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from google.protobuf.message import DecodeError
from opentelemetry.proto.resource.v1.resource_pb2 import Resource
from opentelemetry.proto.trace.v1.trace_pb2 import Span

from ..errors import ForeignJSONError, InputFileError
from ..importers import RecordError
from ..importers._internal import load_json
from ._proto_walk import key_values, resource_spans, span_dict

Value = str | bool | int | float | list[Any] | None


@dataclass
class SpanEventData:
    """One span event: name, time (ns) and attributes."""

    name: str
    time_ns: int
    attrs: dict[str, Value]


@dataclass(slots=True)
class SpanData:
    """One span, normalised: hex ids, ns times, plain attribute values."""

    index: int
    """Position in the file (what a problem names)."""
    trace_id: str
    span_id: str
    parent_id: str
    name: str
    start_ns: int
    end_ns: int
    attrs: dict[str, Value]
    status_code: int = 0
    status_message: str = ""
    events: list[SpanEventData] = field(default_factory=list)
    resource: dict[str, Value] = field(default_factory=dict)


def _hex_id(value: object, size: int) -> str | None:
    """An id as lower-case hex: OTLP-JSON writes hex, protobuf's JSON mapping base64."""
    if not isinstance(value, str) or not value:
        return None
    if len(value) == 2 * size:
        try:
            bytes.fromhex(value)
            return value.lower()
        except ValueError:
            pass
    try:
        raw = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return None
    return raw.hex() if len(raw) == size else None


MAX_TEXT = 1_000_000
"""Characters kept of one attribute value (or span name, or status message): a longer text
is cut here and marked, so one huge value in a file costs its tail, not the import's memory
(every copy a session's text goes through on its way to the store is bounded by it)."""


def clip(text: str) -> str:
    """`text`, cut to MAX_TEXT characters with a marker saying how long it was."""
    if len(text) <= MAX_TEXT:
        return text
    return f"{text[:MAX_TEXT]}... [truncated by sessionproof: {len(text):,} characters]"


def _value(node: object, clipped: list[int]) -> Value:
    """A plain attribute value; the length of each text cut is added to `clipped`."""
    if not isinstance(node, dict):
        return None
    if "stringValue" in node:
        text = node["stringValue"]
        text = text if isinstance(text, str) else str(text)
        if len(text) > MAX_TEXT:
            clipped.append(len(text))
            return clip(text)
        return text
    if "boolValue" in node:
        return bool(node["boolValue"])
    if "intValue" in node:
        try:
            return int(node["intValue"])
        except (TypeError, ValueError):
            return None
    if "doubleValue" in node:
        try:
            return float(node["doubleValue"])
        except (TypeError, ValueError):
            return None
    array = node.get("arrayValue")
    if isinstance(array, dict):
        values = array.get("values")
        return [_value(v, clipped) for v in values] if isinstance(values, list) else []
    return None


def _attrs(items: object, warn: Callable[[str, str], None] | None = None) -> dict[str, Value]:
    """The attributes of a list of OTLP key-values; `warn(key, message)` hears of each
    value cut to MAX_TEXT."""
    out: dict[str, Value] = {}
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict) and isinstance(item.get("key"), str):
            clipped: list[int] = []
            out[item["key"]] = _value(item.get("value"), clipped)
            if clipped and warn is not None:
                longest = max(clipped)
                warn(
                    item["key"],
                    f"a text of {longest:,} characters, kept to its first {MAX_TEXT:,}",
                )
    return out


MAX_NS = 2**64 - 1
"""The latest time OTLP can say (its times are unsigned 64-bit nanoseconds)."""


def _ns(value: object, warn: Callable[[str], None] | None = None) -> int:
    """A time in ns; 0 (unknown) when absent, unreadable or past OTLP's 64 bits, which
    `warn` is told of (a time that large would overflow every float it becomes)."""
    if isinstance(value, bool) or not isinstance(value, int | str | float):
        return 0
    text = str(value).strip()
    if isinstance(value, float):  # a JSON number past 64 bits reads as a float
        ns = int(value) if math.isfinite(value) and 0 <= value <= MAX_NS else MAX_NS + 1
    else:
        try:
            ns = int(text)
        except ValueError:
            if not text.lstrip("-").isdigit():
                return 0  # not a number: unknown, as a missing time is
            ns = MAX_NS + 1  # more digits than Python reads
    if 0 <= ns <= MAX_NS:
        return ns
    if warn is not None:
        shown = text if len(text) <= 24 else f"{text[:20]}... ({len(text)} digits)"
        warn(f"time {shown} is outside OTLP's unsigned 64-bit nanoseconds; read as unknown")
    return 0


def _proto_span(raw: bytes, place: tuple[int, int]) -> dict[str, Any]:
    """The span at `place` (its bytes' start and end) as its JSON-mapping dict."""
    try:
        message = Span.FromString(raw[place[0] : place[1]])
    except DecodeError as exc:
        raise InputFileError(f"not an OTLP protobuf trace request (cut short?): {exc}") from None
    return span_dict(message)


def _proto_parts(
    raw: bytes,
) -> Iterator[tuple[dict[str, Value], Iterator[tuple[tuple[int, int], dict[str, Any]]]]]:
    """Each resource's attributes and its spans (each with its place in the file), one span
    decoded and turned into its JSON-mapping dict at a time: the whole request parsed, or as
    dicts, took several times the file."""
    for resource_bytes, places in resource_spans(raw):
        try:
            resource = Resource.FromString(resource_bytes)
        except DecodeError as exc:
            raise InputFileError(
                f"not an OTLP protobuf trace request (cut short?): {exc}"
            ) from None
        attrs = _attrs(key_values(resource.attributes))
        yield attrs, ((place, _proto_span(raw, place)) for place in places)


def _documents(raw: bytes) -> list[Any]:
    try:
        return [load_json(raw)]
    except ForeignJSONError as whole:
        docs = []
        for number, line in enumerate(raw.splitlines(), 1):
            if not line.strip():
                continue
            try:
                docs.append(load_json(line))
            except ForeignJSONError as exc:
                if number == 1:
                    raise InputFileError(f"not OTLP-JSON: {whole}") from None
                raise InputFileError(f"line {number}: not OTLP-JSON: {exc}") from None
        return docs


def decode_spans(raw: bytes, fmt: str) -> tuple[list[SpanData], list[RecordError]]:
    """Every span of an OTLP file, and a problem per span (or part of the file) that had to
    be skipped. Raises InputFileError when the file is not OTLP traces, or holds no span
    because its parts are of the wrong shape (each named)."""
    spans: list[SpanData] = []
    problems: list[RecordError] = []
    shape: list[RecordError] = []
    index = 0
    if fmt == "otlp-proto":
        for resource, messages in _proto_parts(raw):
            for _, message in messages:
                span = _span(message, index, problems)
                index += 1
                if span is not None:
                    span.resource = resource
                    spans.append(span)
        return spans, problems
    for doc in _documents(raw):
        if not isinstance(doc, dict) or not isinstance(doc.get("resourceSpans"), list):
            raise InputFileError('not OTLP traces: expected {"resourceSpans": [...]}')
        for r, rs in enumerate(doc["resourceSpans"]):
            where = f"resourceSpans.{r}"
            if not isinstance(rs, dict):
                shape.append(_misshapen(where, "an object", rs))
                continue
            scopes, res = rs.get("scopeSpans"), rs.get("resource")
            resource = _attrs(res.get("attributes")) if isinstance(res, dict) else {}
            if not isinstance(scopes, list):
                shape.append(_misshapen(f"{where}.scopeSpans", "a list", scopes))
                continue
            for s, ss in enumerate(scopes):
                items = ss.get("spans") if isinstance(ss, dict) else ss
                if not isinstance(items, list):
                    what = f"{where}.scopeSpans.{s}" + (".spans" if isinstance(ss, dict) else "")
                    shape.append(_misshapen(what, "a list of spans", items))
                    continue
                for item in items:
                    span = _span(item, index, problems)
                    index += 1
                    if span is not None:
                        span.resource = resource
                        spans.append(span)
    if shape and index == 0:
        named = "; ".join(f"{p.field} {p.message}" for p in shape[:3])
        more = f" (and {len(shape) - 3} more)" if len(shape) > 3 else ""
        raise InputFileError(f"no spans in the OTLP file: {named}{more}")
    return spans, shape + problems


Restore = Callable[[SpanData], SpanData]
"""A slim span → the same span decoded in full."""


def decode_slim(
    raw: bytes, fmt: str, keys: frozenset[str]
) -> tuple[list[SpanData], list[RecordError], Restore]:
    """`decode_spans`, but each protobuf span kept slim: of its attributes only `keys`, no
    events, name or status message; `restore` decodes one again in full from the file's bytes.
    So a session is built from its spans in full while the file's other spans stay slim (every
    span of a large file in full took several times the file). OTLP-JSON spans stay whole."""
    if fmt != "otlp-proto":
        whole, told = decode_spans(raw, fmt)
        return whole, told, lambda span: span
    spans: list[SpanData] = []
    problems: list[RecordError] = []
    starts, ends = array("q"), array("q")
    for resource, messages in _proto_parts(raw):
        for place, message in messages:
            index = len(starts)
            starts.append(place[0])
            ends.append(place[1])
            span = _span(message, index, problems)
            if span is not None:
                span.resource = resource
                spans.append(_slim(span, keys))

    def restore(span: SpanData) -> SpanData:
        place = (starts[span.index], ends[span.index])
        full = _span(_proto_span(raw, place), span.index, [])  # its problems were told
        if full is None:  # it decoded once: it decodes again
            raise ValueError(f"span #{span.index} cannot be read again")
        full.resource = span.resource
        return full

    return spans, problems, restore


def _slim(span: SpanData, keys: frozenset[str]) -> SpanData:
    """`span` without what grouping spans into sessions does not read."""
    span.attrs = {k: v for k, v in span.attrs.items() if k in keys}
    span.events = []
    span.name = span.status_message = ""
    span.trace_id = sys.intern(span.trace_id)  # shared by every span of its trace
    span.parent_id = sys.intern(span.parent_id)
    return span


def _misshapen(field: str, expected: str, value: object) -> RecordError:
    """The problem of a part of the file that is not the shape OTLP gives it."""
    kind = type(value).__name__
    got = "missing" if value is None else f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}"
    return RecordError(index=None, field=field, message=f"should be {expected}, is {got}")


def _span(item: object, index: int, problems: list[RecordError]) -> SpanData | None:
    if not isinstance(item, dict):
        problems.append(RecordError(index=index, field="", message="a span must be an object"))
        return None
    trace_id = _hex_id(item.get("traceId"), 16)
    span_id = _hex_id(item.get("spanId"), 8)
    if trace_id is None or span_id is None:
        bad = "traceId" if trace_id is None else "spanId"
        problems.append(
            RecordError(index=index, field=bad, message="missing, or not a hex or base64 id")
        )
        return None
    status = item.get("status") if isinstance(item.get("status"), dict) else {}
    assert isinstance(status, dict)
    code = status.get("code", 0)

    def warn(field: str) -> Callable[[str], None]:
        def add(message: str) -> None:
            problems.append(RecordError(index=index, field=field, message=message, fatal=False))

        return add

    def clipped(where: str) -> Callable[[str, str], None]:
        def add(key: str, message: str) -> None:
            problems.append(
                RecordError(index=index, field=f"{where}{key}", message=message, fatal=False)
            )

        return add

    raw_events = item.get("events")
    events = [
        SpanEventData(
            clip(str(e.get("name", ""))),
            _ns(e.get("timeUnixNano"), warn(f"events.{i}.timeUnixNano")),
            _attrs(e.get("attributes"), clipped(f"events.{i}.attributes.")),
        )
        for i, e in enumerate(raw_events if isinstance(raw_events, list) else [])
        if isinstance(e, dict)
    ]
    return SpanData(
        index=index,
        trace_id=trace_id,
        span_id=span_id,
        parent_id=_hex_id(item.get("parentSpanId"), 8) or "",
        name=clip(str(item.get("name", ""))),
        start_ns=_ns(item.get("startTimeUnixNano"), warn("startTimeUnixNano")),
        end_ns=_ns(item.get("endTimeUnixNano"), warn("endTimeUnixNano")),
        attrs=_attrs(item.get("attributes"), clipped("attributes.")),
        status_code=2
        if code in (2, "STATUS_CODE_ERROR")
        else (1 if code in (1, "STATUS_CODE_OK") else 0),
        status_message=clip(str(status.get("message", ""))),
        events=events,
    )
