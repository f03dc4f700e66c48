"""Request bodies as JSON bytes, built once and sent as they are.

The provider SDKs re-walk every request parameter against their TypedDict annotations before
sending it (the openai SDK spends ~3.7 ms per tau2-sized request there, most of a model
call's harness CPU). Our payloads are already plain JSON — dicts, lists, strings, numbers —
so the adapters serialise them here with orjson and hand the bytes to the SDK's own request
path (`client.post(..., content=...)`), which still does auth, headers, timeouts and the
typed errors. Tool schemas rarely change within a run, so their serialised form is cached.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

import orjson

from ..records import ToolSpec

BYTES_PER_TOKEN = 4.0
"""A request's size in tokens is estimated as its JSON bytes over this (for `--tpm`)."""

_CACHE_SIZE = 32
"""Distinct tool lists remembered per cache: arms with drift see a few variants, not more."""


def dumps(value: Any) -> bytes:
    """`value` as compact JSON bytes (orjson; the standard library for what orjson refuses,
    such as integers wider than 64 bits)."""
    try:
        return orjson.dumps(value)
    except TypeError:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def with_fields(head: dict[str, Any], fields: Sequence[tuple[str, bytes]]) -> bytes:
    """The JSON object `head` with each (key, already-serialised JSON) pair appended.

    Splicing the cached tool bytes in avoids serialising the schemas again for every call.
    `head` must not be empty and must not hold the appended keys.
    """
    body = dumps(head)
    if not fields:
        return body
    parts = [body[:-1]]
    for key, raw in fields:
        parts.append(b"," + dumps(key) + b":" + raw)
    parts.append(b"}")
    return b"".join(parts)


class ToolPayloads:
    """Serialised `tools` arrays, cached by the identity of the `ToolSpec` objects.

    A domain hands the same frozen `ToolSpec` objects to every request of a session (and the
    toolkit class to every session of a run), so identity is a cheap, exact key; a drifted
    tool is a new object and gets its own entry. Entries keep their specs alive, so an `id`
    in a key is never reused by another object while the entry exists.
    """

    def __init__(self, render: Callable[[ToolSpec], dict[str, Any]]) -> None:
        self._render = render
        self._entries: OrderedDict[tuple[int, ...], tuple[tuple[ToolSpec, ...], bytes]] = (
            OrderedDict()
        )

    def __call__(self, tools: Sequence[ToolSpec]) -> bytes:
        """The JSON array of `tools`, each rendered by this cache's provider format."""
        key = tuple(map(id, tools))
        entry = self._entries.get(key)
        if entry is not None and all(a is b for a, b in zip(entry[0], tools, strict=True)):
            self._entries.move_to_end(key)
            return entry[1]
        raw = dumps([self._render(spec) for spec in tools])
        self._entries[key] = (tuple(tools), raw)
        if len(self._entries) > _CACHE_SIZE:
            self._entries.popitem(last=False)
        return raw
