"""Which texts of a write may hold something to redact: one pass over a whole batch.

`Scrubber.might_hold` tests one text with a substring search per marker (26 of them) and per
known secret form. On the 17 MB of JSON payloads of a thousand tau2 sessions that is ~400 ms
of CPU; DuckDB's regular expressions (RE2, a DFA: one pass whatever the number of
alternatives) find the same candidates in ~70 ms. A batch below `_RE2_MIN_CHARS` keeps the
substring tests, which cost less than one DuckDB query (~2 ms), and so does every batch of a
process that has scanned less than `_RE2_OPEN_MIN_CHARS` in all (opening DuckDB costs more).

Sound by construction: the RE2 pattern matches, case-insensitively, every marker and secret
form `might_hold` looks for, so it flags at least the texts `might_hold` would; the two
characters whose lower case is ASCII but not their case-folded partner (U+0130 'İ' and
U+212A, the Kelvin sign) flag a text on their own. Flagged texts are then tested exactly by
`might_hold`, so the outcome is the same text for text. A secret with a non-ASCII form
(where Python's lower-casing and RE2's case folding might differ) keeps the exact tests.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence

import duckdb

from ._scrub import Scrubber, marker_substrings

_RE2_MIN_CHARS = 256 * 1024
"""Total text below which the substring tests are cheaper than one query."""
_RE2_OPEN_MIN_CHARS = 1024 * 1024
"""Text a process must have scanned (its earlier batches and this one) before its scans
open their in-memory DuckDB: opening it costs 10-20 ms on the project machine (~50 at load
8), as long as the substring tests take on about 1 MB. A small `score` (one batch of a few
dozen sessions) never opens it; a run opens it once its writes have passed 1 MB."""
_scanned = 0
"""Characters this process has scanned so far."""
_VIEW = "sessionproof_scan_batch"
_ALWAYS = ("\u0130", "\u212a")
"""Non-ASCII characters that Python lower-cases into a marker's letters."""

_patterns: dict[tuple[str, ...], str] = {}
_engine: tuple[int, threading.Lock, duckdb.DuckDBPyConnection] | None = None
"""(the process it was made in, its lock, the in-memory connection the scans run on)."""


def _escaped(text: str) -> str:
    # Every character but [A-Za-z0-9] as \x{...}: literal in RE2 whatever it is, and no
    # quote left to break the SQL string the pattern is spliced into.
    return "".join(c if c.isascii() and c.isalnum() else f"\\x{{{ord(c):x}}}" for c in text)


def _pattern(needles: tuple[str, ...]) -> str:
    """The RE2 pattern for `might_hold`'s markers and secret `needles` (cached)."""
    found = _patterns.get(needles)
    if found is None:
        found = "(?i)" + "|".join(_escaped(p) for p in (*marker_substrings(), *needles))
        # Case-sensitive: case-insensitively they would match every "i" and "k".
        found += "|(?-i:" + "|".join(_escaped(c) for c in _ALWAYS) + ")"
        if len(_patterns) > 32:  # secrets change rarely; never let the cache grow unbounded
            _patterns.clear()
        _patterns[needles] = found
    return found


def _connection() -> tuple[threading.Lock, duckdb.DuckDBPyConnection] | None:
    """The lock and connection the scans run on; None in a child forked after the scans
    started here: DuckDB does not survive a fork (its threads and locks stay behind, and
    the child hangs on its next call), so the child keeps to the substring tests."""
    global _engine
    if _engine is None:
        conn = duckdb.connect(":memory:")
        # One thread: the scan is short, and a store write should not compete for cores.
        conn.execute("SET threads = 1")
        _engine = (os.getpid(), threading.Lock(), conn)
    if _engine[0] != os.getpid():
        return None
    return _engine[1], _engine[2]


def _flag_re2(texts: Sequence[str], pattern: str) -> list[int] | None:
    """Positions of the texts the pattern matches, in order; None when it cannot run here."""
    engine = _connection()
    if engine is None:
        return None
    lock, conn = engine
    import numpy as np  # imported when a scan runs: commands that never scan skip its cost

    column = np.empty(len(texts), dtype=object)
    column[:] = texts
    with lock:
        conn.register(_VIEW, {"i": np.arange(len(texts), dtype=np.int64), "t": column})
        try:
            rows = conn.execute(
                f"SELECT i FROM {_VIEW} WHERE regexp_matches(t, '{pattern}')"
            ).fetchall()
        finally:
            conn.unregister(_VIEW)
    return sorted(int(r[0]) for r in rows)


def may_hold(scrubber: Scrubber, texts: Sequence[str]) -> list[int]:
    """Positions of the texts that `scrubber.might_hold` is true of, in order."""
    global _scanned
    needles = scrubber.needles
    total = sum(map(len, texts))
    _scanned += total
    opened = _engine is not None or _scanned >= _RE2_OPEN_MIN_CHARS
    if total >= _RE2_MIN_CHARS and opened and all(n.isascii() for n in needles):
        flagged: Sequence[int] | None
        try:
            flagged = _flag_re2(texts, _pattern(needles))
        except duckdb.Error:
            flagged = range(len(texts))  # the exact test of every text, below
        if flagged is not None:
            return [i for i in flagged if scrubber.might_hold(texts[i])]
    # One test of the joined text first: when it holds nothing, no part of it can.
    if not scrubber.might_hold("\n".join(texts)):
        return []
    return [i for i, text in enumerate(texts) if scrubber.might_hold(text)]
