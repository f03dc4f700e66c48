"""Writing a mutated JSON value as bytes, including what a JSON encoder refuses to write.

Mutations leave markers in the tree (`Raw` bytes, `DupKeys`) for text no Python value can
stand for: NaN tokens, nesting deeper than the encoder's recursion limit, invalid UTF-8 inside
a string, an object that repeats a key. The writer recurses over the (shallow) tree only;
deep nesting is a `Raw` marker, so writing never hits a recursion limit.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Raw:
    """Bytes written verbatim where a JSON value goes."""

    data: bytes


@dataclass(frozen=True)
class DupKeys:
    """An object written with these (key, value) pairs, repeated keys and all."""

    pairs: tuple[tuple[str, Any], ...]


def _string(text: str, ascii_only: bool) -> bytes:
    try:
        return json.dumps(text, ensure_ascii=ascii_only).encode("utf-8")
    except UnicodeEncodeError:
        # A lone surrogate cannot be UTF-8: write it as the \\udXXX escape a file would hold.
        return json.dumps(text, ensure_ascii=True).encode("ascii")


def dumps(value: Any, *, ascii_only: bool = False) -> bytes:
    """`value` as JSON text, markers written as they say."""
    out: list[bytes] = []
    _write(value, out, ascii_only)
    return b"".join(out)


def _write(value: Any, out: list[bytes], ascii_only: bool) -> None:
    if isinstance(value, Raw):
        out.append(value.data)
    elif isinstance(value, DupKeys):
        _pairs(value.pairs, out, ascii_only)
    elif isinstance(value, dict):
        _pairs(tuple(value.items()), out, ascii_only)
    elif isinstance(value, list | tuple):
        out.append(b"[")
        for n, item in enumerate(value):
            if n:
                out.append(b", ")
            _write(item, out, ascii_only)
        out.append(b"]")
    elif isinstance(value, str):
        out.append(_string(value, ascii_only))
    else:
        # None, bools, ints of any size, floats (NaN and Infinity come out as those tokens).
        out.append(json.dumps(value).encode("ascii"))


def _pairs(pairs: tuple[tuple[str, Any], ...], out: list[bytes], ascii_only: bool) -> None:
    out.append(b"{")
    for n, (key, item) in enumerate(pairs):
        if n:
            out.append(b", ")
        out.append(_string(str(key), ascii_only))
        out.append(b": ")
        _write(item, out, ascii_only)
    out.append(b"}")


def has_markers(value: Any) -> bool:
    """True when `value` holds a marker (so it cannot be written by a YAML dumper)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, Raw | DupKeys):
            return True
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False
