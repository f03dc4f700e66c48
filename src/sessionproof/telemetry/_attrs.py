"""Span attributes as OTLP `KeyValue`s, typed as the SDK's OTLP encoder types them.

An attribute becomes the mapping `{"key": k, "value": {field: v}}` that a protobuf message's
constructor accepts in place of a `KeyValue`: upb converts a whole span's worth in C, where
building each `KeyValue` and `AnyValue` by a Python call costs about twice as much.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

AttrValue = str | bool | int | float | Sequence[str]
Attrs = dict[str, AttrValue]
KeyValueMap = dict[str, Any]
"""A `KeyValue` as the mapping its constructor takes."""

# By exact type first (one dict lookup for nearly every value); bool before int, as a bool
# is an int to isinstance.
_FIELD: dict[type, str] = {
    str: "string_value",
    bool: "bool_value",
    int: "int_value",
    float: "double_value",
}


def _value(value: Any) -> dict[str, Any]:
    """The `AnyValue` mapping of `value`, tested in the order the SDK's encoder tests."""
    if value is None:
        return {}
    for kind, field in _FIELD.items():
        if isinstance(value, kind) and (kind is not int or not isinstance(value, bool)):
            return {field: value}
    if isinstance(value, bytes):
        return {"bytes_value": value}
    if isinstance(value, Sequence):
        return {"array_value": {"values": [_value(v) for v in value]}}
    raise TypeError(f"cannot encode an attribute of type {type(value).__name__}: {value!r}")


def key_values(attrs: Mapping[str, Any]) -> list[KeyValueMap]:
    """`attrs` (ours, or a resource's) as `KeyValue` mappings, in their order."""
    get = _FIELD.get
    return [
        {"key": k, "value": {f: v} if (f := get(type(v))) else _value(v)} for k, v in attrs.items()
    ]


def plain_value(value: AnyValue) -> Any:
    """The Python value of an `AnyValue` (an array as a tuple, as the SDK keeps them)."""
    which = value.WhichOneof("value")
    if which is None:
        return None
    if which == "array_value":
        return tuple(plain_value(v) for v in value.array_value.values)
    return getattr(value, which)


def plain_attrs(kvs: Sequence[KeyValue]) -> dict[str, Any]:
    """`KeyValue`s as an attribute dict."""
    return {kv.key: plain_value(kv.value) for kv in kvs}
