"""Seeded byte-level mutations of a file: cut it, flip bytes, add junk lines, break encoding.

These model what happens to files on the way to a user: a killed writer, a bad copy, an
editor that adds a BOM or CRLF, two logs concatenated, a binary byte in the middle.
"""

from __future__ import annotations

import random
from collections.abc import Callable

JUNK_LINES: tuple[bytes, ...] = (
    b"garbage",
    b"{",
    b"[]",
    b"null",
    b"1",
    b'"just a string"',
    b'{"messages": ',
    b"\xff\xfe\x00\x00",
    b"\x00\x00\x00",
    b"{}" * 5_000,
    b'{"id": 1, "id": 2}',
    b"NaN",
    b"\xef\xbb\xbf{}",
)


def _truncate(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    at = rng.randrange(len(data)) if data else 0
    return data[:at], f"truncate at byte {at} of {len(data)}"


def _flip(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    if not data:
        return data, "flip nothing"
    out = bytearray(data)
    spots = sorted(rng.randrange(len(out)) for _ in range(rng.randint(1, 8)))
    for at in spots:
        out[at] = rng.randrange(256)
    return bytes(out), f"flip bytes at {spots}"


def _junk_line(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    lines = data.split(b"\n")
    at = rng.randrange(len(lines) + 1)
    junk = rng.choice(JUNK_LINES)
    lines.insert(at, junk)
    return b"\n".join(lines), f"insert junk line {junk[:20]!r} at line {at + 1}"


def _drop_line(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    lines = data.split(b"\n")
    at = rng.randrange(len(lines))
    del lines[at]
    return b"\n".join(lines), f"delete line {at + 1}"


def _dup_line(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    lines = data.split(b"\n")
    at = rng.randrange(len(lines))
    lines.insert(at, lines[at])
    return b"\n".join(lines), f"duplicate line {at + 1}"


def _empty(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    blank = rng.choice([b"", b"\n", b"   \n\t\n", b"\xef\xbb\xbf"])
    return blank, f"replace file by {blank!r}"


def _bom(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    return b"\xef\xbb\xbf" + data, "BOM prefix"


def _crlf(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    return data.replace(b"\n", b"\r\n"), "CRLF line ends"


def _bad_utf8(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    at = rng.randrange(len(data) + 1)
    bad = rng.choice([b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80", b"\x80"])
    return data[:at] + bad + data[at:], f"insert non-UTF-8 {bad!r} at byte {at}"


def _nul(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    at = rng.randrange(len(data) + 1)
    return data[:at] + b"\x00" + data[at:], f"insert NUL at byte {at}"


def _double(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    return data + b"\n" + data, "file concatenated with itself"


TextOp = Callable[[bytes, random.Random], tuple[bytes, str]]

TEXT_OPS: dict[str, tuple[TextOp, int]] = {
    "truncate": (_truncate, 4),
    "flip": (_flip, 3),
    "junk_line": (_junk_line, 3),
    "drop_line": (_drop_line, 1),
    "dup_line": (_dup_line, 2),
    "empty": (_empty, 1),
    "bom": (_bom, 1),
    "crlf": (_crlf, 1),
    "bad_utf8": (_bad_utf8, 2),
    "nul": (_nul, 1),
    "double": (_double, 1),
}


def mutate_text(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    """One byte-level mutation of `data`, and what it did."""
    names = list(TEXT_OPS)
    name = rng.choices(names, weights=[TEXT_OPS[n][1] for n in names])[0]
    return TEXT_OPS[name][0](data, rng)
