"""Reading a JSON document that may be cut short, keeping every complete record.

A results file truncated by a killed run still holds hundreds of complete records before the
cut. `load_salvaging` parses the whole document fast when it is valid; otherwise it walks the
top-level object or list with the standard decoder and keeps every complete value, descending
one level into a list that breaks, so the records before the break survive.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import orjson

_DECODER = json.JSONDecoder()
_BLANK = " \t\r\n"


@dataclass
class Salvaged:
    """What could be read, and where reading stopped (None when the document was whole)."""

    value: Any
    problem: str | None = None
    broken_list: str | None = None
    """Top-level key (or "" for a top-level list) of the list the break fell inside."""
    complete_items: int = 0
    """How many items of that list were complete before the break."""
    notes: list[str] = field(default_factory=list)


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in _BLANK:
        i += 1
    return i


def _where(text: str, i: int) -> str:
    line = text.count("\n", 0, i) + 1
    col = i - (text.rfind("\n", 0, i) + 1) + 1
    return f"line {line} column {col}"


def _items(text: str, i: int) -> tuple[list[Any], int, str | None]:
    """Complete items of the list starting at text[i] == '['; the problem if it breaks."""
    items: list[Any] = []
    i = _skip(text, i + 1)
    if i < len(text) and text[i] == "]":
        return items, i + 1, None
    while True:
        try:
            value, i = _DECODER.raw_decode(text, i)
        except json.JSONDecodeError as exc:
            return (
                items,
                i,
                f"item {len(items)} is cut short or malformed ({exc.msg}, {_where(text, exc.pos)})",
            )
        items.append(value)
        i = _skip(text, i)
        if i < len(text) and text[i] == ",":
            i = _skip(text, i + 1)
            continue
        if i < len(text) and text[i] == "]":
            return items, i + 1, None
        return items, i, f"list ends without ']' after item {len(items) - 1} ({_where(text, i)})"


def _object(text: str, i: int) -> Salvaged:
    out: dict[str, Any] = {}
    i = _skip(text, i + 1)
    while i < len(text) and text[i] != "}":
        try:
            key, i = _DECODER.raw_decode(text, i)
        except json.JSONDecodeError as exc:
            return Salvaged(out, f"document cut short or malformed at {_where(text, exc.pos)}")
        i = _skip(text, i)
        if i >= len(text) or text[i] != ":" or not isinstance(key, str):
            return Salvaged(out, f"document cut short or malformed at {_where(text, i)}")
        i = _skip(text, i + 1)
        if i < len(text) and text[i] == "[":
            items, i, problem = _items(text, i)
            out[key] = items
            if problem:
                return Salvaged(out, f"{key}: {problem}", key, len(items))
        else:
            try:
                out[key], i = _DECODER.raw_decode(text, i)
            except json.JSONDecodeError as exc:
                return Salvaged(
                    out, f"{key}: cut short or malformed ({exc.msg}, {_where(text, exc.pos)})"
                )
        i = _skip(text, i)
        if i < len(text) and text[i] == ",":
            i = _skip(text, i + 1)
    if i >= len(text):
        return Salvaged(out, "document ends without its closing '}'")
    return Salvaged(out)


def load_salvaging(raw: bytes) -> Salvaged:
    """Parse a JSON document; when it is broken, keep every complete top-level value."""
    try:
        return Salvaged(orjson.loads(raw))
    except orjson.JSONDecodeError:
        pass
    text = raw.decode("utf-8", errors="replace")
    i = _skip(text, 0)
    if i >= len(text):
        return Salvaged(None, "the file is empty")
    if text[i] == "{":
        return _object(text, i)
    if text[i] == "[":
        items, _, problem = _items(text, i)
        return Salvaged(items, problem, "" if problem else None, len(items))
    return Salvaged(None, f"not JSON: starts with {text[i]!r} ({_where(text, i)})")
