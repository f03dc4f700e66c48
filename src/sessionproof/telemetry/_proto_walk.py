"""Where each span of an OTLP protobuf file lies, found from the wire format without decoding
the request: a request is decoded one span at a time from these places, so a large file
never exists as one message (the whole request, parsed, took several times the file).

A request is a run of `resource_spans` (field 1); each holds its `resource` (field 1) and its
`scope_spans` (field 2); each of those its `spans` (field 2). Other fields are stepped over.
A decoded span becomes the OTLP-JSON object `_decode` reads (`span_dict`).
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable, Iterator
from typing import Any

from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span

from ..errors import InputFileError

_VARINT, _I64, _LEN, _I32 = 0, 1, 2, 5
_HEX = re.compile(r"[0-9a-fA-F]+")


def _broken(why: str) -> InputFileError:
    return InputFileError(f"not an OTLP protobuf trace request (cut short?): {why}")


def _varint(raw: bytes, pos: int, end: int) -> tuple[int, int]:
    """The varint at `pos` and the position after it."""
    value = shift = 0
    while pos < end and shift < 64:
        byte = raw[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, pos
        shift += 7
    raise _broken(f"a varint at byte {pos} runs past its message")


def fields(raw: bytes, start: int, end: int) -> Iterator[tuple[int, int, int]]:
    """Each length-delimited field of the message at raw[start:end]: its number, and where its
    bytes start and end. Fields of other wire types are stepped over."""
    pos = start
    while pos < end:
        key, pos = _varint(raw, pos, end)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise _broken(f"a field numbered 0 at byte {pos}")
        if wire == _VARINT:
            _, pos = _varint(raw, pos, end)
            continue
        if wire == _LEN:
            length, pos = _varint(raw, pos, end)
            if pos + length > end:
                raise _broken(f"field {number} at byte {pos} runs past its message")
            yield number, pos, pos + length
            pos += length
            continue
        size = {_I64: 8, _I32: 4}.get(wire)
        if size is None or pos + size > end:
            raise _broken(f"field {number} at byte {pos} has wire type {wire}")
        pos += size


def resource_spans(raw: bytes) -> Iterator[tuple[bytes, Iterator[tuple[int, int]]]]:
    """Each `resource_spans` of the request: its resource's bytes (the pieces of a resource
    given more than once joined, as protobuf merges them) and the places of its spans, in
    file order. Raises InputFileError at the first place the bytes are not that shape."""
    for number, start, end in fields(raw, 0, len(raw)):
        if number != 1:
            continue
        resource = b"".join(raw[a:b] for f, a, b in fields(raw, start, end) if f == 1)
        yield resource, _spans(raw, start, end)


def _spans(raw: bytes, start: int, end: int) -> Iterator[tuple[int, int]]:
    for number, a, b in fields(raw, start, end):
        if number == 2:  # scope_spans
            yield from ((s, e) for f, s, e in fields(raw, a, b) if f == 2)


def _any(value: AnyValue) -> dict[str, Any]:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return {"arrayValue": {"values": [_any(v) for v in value.array_value.values]}}
    if kind in _SCALARS:
        return {_SCALARS[kind]: getattr(value, kind)}
    return {}  # bytes, key-value lists, nothing: what `_decode` reads as no value


_SCALARS = {
    "string_value": "stringValue",
    "bool_value": "boolValue",
    "int_value": "intValue",
    "double_value": "doubleValue",
}


def key_values(items: Iterable[KeyValue]) -> list[dict[str, Any]]:
    """Attributes as their OTLP-JSON list (an empty key left out, as the JSON mapping does)."""
    return [{"key": kv.key, "value": _any(kv.value)} for kv in items if kv.key]


def _hex(raw: bytes, size: int) -> str:
    """An id as hex; a wrong length reads as no id, except the one a common mistake makes:
    OTLP-JSON turned into protobuf with protobuf's own JSON parser, which reads the hex text
    as base64 (3/2 of the size). Its base64 is then the hex written, and is read as such (as
    the generic JSON mapping of the message did before)."""
    if len(raw) == size:
        return raw.hex()
    if len(raw) * 2 == size * 3:
        text = base64.b64encode(raw).decode("ascii")
        if len(text) == 2 * size and _HEX.fullmatch(text):
            return text.lower()
    return ""


def span_dict(span: Span) -> dict[str, Any]:
    """The OTLP-JSON object of `span`, with what `_decode` reads of one (ids in hex, times
    as integers), built straight from the message: protobuf's generic JSON mapping took
    most of a large import's time."""
    return {
        "traceId": _hex(span.trace_id, 16),
        "spanId": _hex(span.span_id, 8),
        "parentSpanId": _hex(span.parent_span_id, 8),
        "name": span.name,
        "startTimeUnixNano": span.start_time_unix_nano,
        "endTimeUnixNano": span.end_time_unix_nano,
        "attributes": key_values(span.attributes),
        "status": {"code": span.status.code, "message": span.status.message},
        "events": [
            {
                "name": e.name,
                "timeUnixNano": e.time_unix_nano,
                "attributes": key_values(e.attributes),
            }
            for e in span.events
        ],
    }
