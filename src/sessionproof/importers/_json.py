"""The one way foreign JSON is read: byte-order marks dropped, nesting bounded, one error type.

`load_json` parses one value (a whole file, or one line of a JSON Lines file) and raises
`ForeignJSONError` for text that is not JSON or nests deeper than `MAX_DEPTH`.

A results file truncated by a killed run still holds hundreds of complete records before the
cut. `load_salvaging` parses the whole document fast when it is valid; otherwise it walks the
top-level object or list with the standard decoder and keeps every complete value, descending
one level into a list that breaks, so the records before the break survive. What it reads
around is noted: content after the document (a file concatenated with another), and lone
surrogate escapes (valid JSON, but no UTF-8 text), replaced by U+FFFD.
"""

from __future__ import annotations

import codecs
import json
import re
import threading
from dataclasses import dataclass, field
from typing import Any

import orjson

from ..errors import ForeignJSONError

_DECODER = json.JSONDecoder()
_BLANK = " \t\r\n"

MAX_DEPTH = 128
"""Deepest nesting of objects and lists read from a foreign file (a record, or a line).

No real transcript comes near it; past it, a value cannot be stored or written back (orjson
serialises 254 levels, pydantic fewer, and the standard decoder overflows the stack near
1,000), so it is refused where it is read, with a name, instead of failing later."""

TOO_DEEP = f"nested deeper than {MAX_DEPTH} levels"
"""The problem text for a value past `MAX_DEPTH`."""

_WIDE_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def without_bom(raw: bytes) -> bytes:
    """`raw` as UTF-8 without a byte-order mark.

    Editors on Windows save a UTF-8 BOM, and PowerShell redirection writes UTF-16 with one;
    both are the same JSON to us. Raises `ForeignJSONError` for a UTF-16/32 mark over bytes
    that do not decode.
    """
    if raw.startswith(codecs.BOM_UTF8):
        return raw[len(codecs.BOM_UTF8) :]
    for bom, codec in _WIDE_BOMS:  # UTF-32 first: its LE mark starts like UTF-16's
        if raw.startswith(bom):
            try:
                return raw.decode(codec).encode("utf-8")
            except UnicodeError as exc:
                raise ForeignJSONError(f"starts with a {codec} byte-order mark: {exc}") from None
    return raw


def _nested(depth: int) -> Any:
    value: Any = 0
    for _ in range(depth):
        value = [value]
    return value


def _orjson_depth() -> int:
    """The deepest nesting `orjson.dumps` serialises (254 in orjson 3), found once by trying:
    a later orjson with another limit keeps `too_deep` exact instead of silently wrong."""
    low, high = 0, 4096
    while low < high:
        mid = (low + high + 1) // 2
        try:
            orjson.dumps(_nested(mid))
        except orjson.JSONEncodeError:
            high = mid - 1
        else:
            low = mid
    return low


_ORJSON_DEPTH = _orjson_depth()


def _walk_too_deep(value: Any, limit: int) -> bool:
    """The exact answer by walking every object and list; iterative, for any depth."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if type(item) is dict else item if type(item) is list else ()
        for child in children:
            if type(child) is dict or type(child) is list:
                if depth >= limit:
                    return True
                stack.append((child, depth + 1))
    return False


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """True when `value` nests objects and lists more than `limit` levels deep.

    Serialising with orjson inside `_ORJSON_DEPTH - limit` wrapping lists answers "not too
    deep" in C, about 3x faster than walking the value in Python (a tau2 simulation costs
    ~50 µs instead of ~170 µs). orjson counts every container it nests (tuples too), at
    least as many as the walk does, so a success proves the value shallow enough; anything
    else (too deep for orjson, or a value it cannot serialise, like a 100-digit integer)
    gets the exact walk, which never touches the stack.
    """
    if type(value) is not dict and type(value) is not list:
        return False
    wrappers = _ORJSON_DEPTH - limit
    if wrappers >= 0:
        none: list[Any] = [None]
        inner, outer = _chain(wrappers) if wrappers else (none, value)
        inner[0] = value
        try:
            orjson.dumps(outer)
        except (orjson.JSONEncodeError, TypeError):
            pass
        else:
            return False
        finally:
            inner[0] = None  # the chain is reused: it must not keep the value alive
    return _walk_too_deep(value, limit)


_CHAINS = threading.local()
"""Per thread: {depth: (innermost, outermost list) of a chain of that many lists}."""


def _chain(depth: int) -> tuple[list[Any], list[Any]]:
    """A chain of `depth` nested lists, built once per thread: building 126 of them for
    every record cost as much as serialising the record. The caller puts the value in the
    innermost list and takes it out again."""
    chains: dict[int, tuple[list[Any], list[Any]]] | None = getattr(_CHAINS, "by_depth", None)
    if chains is None:
        chains = _CHAINS.by_depth = {}
    found = chains.get(depth)
    if found is None:
        inner: list[Any] = [None]
        outer = inner
        for _ in range(depth - 1):
            outer = [outer]
        found = chains[depth] = (inner, outer)
    return found


_SERIALISED_BELOW = 8 * 1024 * 1024
"""Text size below which `load_json` checks nesting by serialising the value (`too_deep`)."""


def load_json(raw: bytes | str) -> Any:
    """One JSON value from foreign text; `ForeignJSONError` when it is not JSON or too deep.

    The message ("not JSON: ...", or `TOO_DEEP`) names no file: callers add the file and line.
    """
    if isinstance(raw, bytes):
        raw = without_bom(raw)
    elif raw.startswith("\ufeff"):
        raw = raw[1:]
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        if "depth" in str(exc) or "recursion" in str(exc).lower():
            raise ForeignJSONError(TOO_DEEP) from None
        raise ForeignJSONError(f"not JSON: {exc}") from None
    # Nesting needs an opening bracket per level: text with few of them (most lines) cannot
    # be too deep, and counting bytes is far cheaper than walking the value.
    text = raw.encode() if isinstance(raw, str) else raw
    if text.count(b"[") + text.count(b"{") > MAX_DEPTH and (
        # Past a few MB, walking costs less than serialising again: a copy as big as the file.
        too_deep(value) if len(text) < _SERIALISED_BELOW else _walk_too_deep(value, MAX_DEPTH)
    ):
        raise ForeignJSONError(TOO_DEEP)
    return value


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


class _Broken(Exception):
    """A value that cannot be decoded at a position; `problem` says why, `pos` where."""

    def __init__(self, problem: str, pos: int) -> None:
        super().__init__(problem)
        self.problem = problem
        self.pos = pos


def _decode(text: str, i: int) -> tuple[Any, int]:
    """One value at text[i] and the index after it; `_Broken` when it is malformed or nests
    past the standard decoder's recursion (where such a value ends is unknown, so reading
    stops there, as at a cut)."""
    try:
        return _DECODER.raw_decode(text, i)
    except json.JSONDecodeError as exc:
        raise _Broken(f"{exc.msg}, {_where(text, exc.pos)}", exc.pos) from None
    except RecursionError:
        raise _Broken(f"{TOO_DEEP}, {_where(text, i)}", i) from None


def _items(text: str, i: int) -> tuple[list[Any], int, str | None]:
    """Complete items of the list starting at text[i] == '['; the problem if it breaks."""
    items: list[Any] = []
    i = _skip(text, i + 1)
    if i < len(text) and text[i] == "]":
        return items, i + 1, None
    while True:
        try:
            value, i = _decode(text, i)
        except _Broken as exc:
            return items, i, f"item {len(items)} is cut short or malformed ({exc.problem})"
        items.append(value)
        i = _skip(text, i)
        if i < len(text) and text[i] == ",":
            i = _skip(text, i + 1)
            continue
        if i < len(text) and text[i] == "]":
            return items, i + 1, None
        return items, i, f"list ends without ']' after item {len(items) - 1} ({_where(text, i)})"


def _object(text: str, i: int) -> tuple[Salvaged, int]:
    """The object starting at text[i] == '{' and the index after it."""
    out: dict[str, Any] = {}
    i = _skip(text, i + 1)
    while i < len(text) and text[i] != "}":
        try:
            key, i = _decode(text, i)
        except _Broken as exc:
            return Salvaged(out, f"document cut short or malformed ({exc.problem})"), i
        i = _skip(text, i)
        if i >= len(text) or text[i] != ":" or not isinstance(key, str):
            return Salvaged(out, f"document cut short or malformed at {_where(text, i)}"), i
        i = _skip(text, i + 1)
        if i < len(text) and text[i] == "[":
            items, i, problem = _items(text, i)
            out[key] = items
            if problem:
                return Salvaged(out, f"{key}: {problem}", key, len(items)), i
        else:
            try:
                out[key], i = _decode(text, i)
            except _Broken as exc:
                return Salvaged(out, f"{key}: cut short or malformed ({exc.problem})"), i
        i = _skip(text, i)
        if i < len(text) and text[i] == ",":
            i = _skip(text, i + 1)
    if i >= len(text):
        return Salvaged(out, "document ends without its closing '}'"), i
    return Salvaged(out), i + 1


def _trailing(text: str, end: int, doc: Salvaged) -> Salvaged:
    """`doc` with a note when text goes on after its end: a file concatenated with another
    (or itself) would otherwise lose the second part without a word."""
    i = _skip(text, end)
    if doc.problem is None and i < len(text):
        doc.notes.append(
            f"trailing content after the JSON document at {_where(text, i)} (offset {i}): "
            "ignored; only the first document was read"
        )
    return doc


_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _replace_surrogates(doc: Salvaged) -> Salvaged:
    """Lone surrogates (`"\\udfff"` escapes: valid JSON, but no UTF-8 text) replaced by
    U+FFFD in every key and string, with a note; the store, hashes and JSON output all
    encode UTF-8, and would fail on them far from here. Iterative, for any depth."""
    replaced = 0

    def fix(value: Any) -> Any:
        nonlocal replaced
        if type(value) is str and _SURROGATE.search(value):
            replaced += 1
            return _SURROGATE.sub("\ufffd", value)
        return value

    doc.value = fix(doc.value)
    stack = [doc.value]
    while stack:
        item = stack.pop()
        if type(item) is list:
            for k, child in enumerate(item):
                item[k] = fix(child)
            stack.extend(c for c in item if type(c) is dict or type(c) is list)
        elif type(item) is dict:
            pairs = [(fix(key), fix(child)) for key, child in item.items()]
            item.clear()
            item.update(pairs)
            stack.extend(c for _, c in pairs if type(c) is dict or type(c) is list)
    if replaced:
        doc.notes.append(
            f"{replaced} string(s) held lone surrogate escapes (not valid Unicode text); "
            "each was replaced by U+FFFD"
        )
    return doc


def load_salvaging(raw: bytes) -> Salvaged:
    """Parse a JSON document; when it is broken, keep every complete top-level value.

    A byte-order mark is dropped first. Nesting is bounded only by the parsers here (a part
    too deep for them is a `problem`); readers check each record with `too_deep`. Warnings
    on what was read anyway (content after the document, lone surrogates replaced) are
    `notes`.
    """
    try:
        raw = without_bom(raw)
    except ForeignJSONError as exc:
        return Salvaged(None, str(exc))
    try:
        return Salvaged(orjson.loads(raw))
    except orjson.JSONDecodeError:
        pass
    text = raw.decode("utf-8", errors="replace")
    i = _skip(text, 0)
    if i >= len(text):
        return Salvaged(None, "the file is empty")
    if text[i] == "{":
        doc, end = _object(text, i)
    elif text[i] == "[":
        items, end, problem = _items(text, i)
        doc = Salvaged(items, problem, "" if problem else None, len(items))
    else:
        return Salvaged(None, f"not JSON: starts with {text[i]!r} ({_where(text, i)})")
    # Only this fallback can meet either: orjson refuses trailing content and surrogates.
    doc = _trailing(text, end, doc)
    # Bytes decoded with "replace" hold no surrogates: only `\uD800`-`\uDFFF` escapes do.
    return _replace_surrogates(doc) if _SURROGATE_ESCAPE.search(text) else doc
