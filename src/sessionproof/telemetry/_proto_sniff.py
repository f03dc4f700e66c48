"""Telling an OTLP protobuf trace file (`ExportTraceServiceRequest`) by its wire structure,
without decoding it: the request is a run of `resource_spans` fields (field 1, length
delimited), and the first of them is itself a run of length-delimited fields 1-3 (resource,
scope spans, schema url), each ending exactly where the next begins."""

from __future__ import annotations

_RESOURCE_SPANS_TAG = 0x0A
"""Field 1, wire type 2: a request's `resource_spans`."""
_RESOURCE_SPANS_FIELDS = frozenset({0x0A, 0x12, 0x1A})
"""ResourceSpans' fields 1-3 (resource, scope_spans, schema_url), all length-delimited."""


def _varint(raw: bytes, pos: int) -> tuple[int, int] | None:
    """The varint at `pos` and the position after it (None when cut short or too long)."""
    value = shift = 0
    while pos < len(raw) and shift < 64:
        byte = raw[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, pos
        shift += 7
    return None


def _tiles(raw: bytes, start: int, end: int, tags: frozenset[int]) -> bool:
    """True when raw[start:end] is a run of length-delimited fields of `tags`, exactly."""
    pos = start
    while pos < end:
        if raw[pos] not in tags:
            return False
        read = _varint(raw, pos + 1)
        if read is None or read[1] + read[0] > end:
            return False
        pos = read[1] + read[0]
    return pos == end


def looks_like_otlp_proto(raw: bytes) -> bool:
    """True when `raw` has the wire structure of a non-empty OTLP protobuf trace request."""
    pos, count = 0, 0
    while pos < len(raw):
        if raw[pos] != _RESOURCE_SPANS_TAG:
            return False
        read = _varint(raw, pos + 1)
        if read is None:
            return False
        length, body = read
        if body + length > len(raw):
            return False
        if count == 0 and not _tiles(raw, body, body + length, _RESOURCE_SPANS_FIELDS):
            return False
        pos, count = body + length, count + 1
    return count > 0
