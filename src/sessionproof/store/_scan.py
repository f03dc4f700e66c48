"""Which texts of a write may hold something to redact: one pass over a whole batch.

`Scrubber.might_hold` tests one text with a substring search per marker (26 of them) and per
known secret form. On the 17 MB of JSON payloads of a thousand tau2 sessions that is ~400 ms
of CPU; DuckDB's regular expressions (RE2, a DFA: one pass whatever the number of
alternatives) find the same candidates in ~70 ms. A batch below `_RE2_MIN_CHARS` keeps the
substring tests, which cost less than one DuckDB query (~2 ms).

The texts reach DuckDB as one Arrow array, copied once (~16 ms for those 17 MB). Handed over
as a NumPy object array, whose Python strings DuckDB reads vector by vector under the GIL,
the same scan took 110 ms against 59.

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
import numpy as np
import pyarrow as pa

from ._scrub import Scrubber, marker_substrings

_RE2_MIN_CHARS = 256 * 1024
"""Total text below which the substring tests are cheaper than one query."""
_VIEW = "sessionproof_scan_batch"
_MAX_THREADS = 4
_CHARS_PER_THREAD = 4 * 1024 * 1024
"""Text below which a scan keeps to one thread."""
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
        # The machine's cores, up to `_MAX_THREADS`: only a bulk batch is split to use more
        # than one (`_flag_re2`).
        conn.execute(f"SET threads = {min(_MAX_THREADS, os.cpu_count() or 1)}")
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
    # large_string: 32-bit offsets would cap a batch at 2 GB of text.
    table = pa.table(
        {"i": np.arange(len(texts), dtype=np.int64), "t": pa.array(texts, pa.large_string())}
    )
    # DuckDB scans one Arrow batch per thread. A run's writes stay on one (they share the
    # machine with the sessions in flight); a bulk write's scan of the 17 MB of a thousand
    # tau2 sessions on two took 30 ms against 59.
    parts = max(1, min(_MAX_THREADS, sum(map(len, texts)) // _CHARS_PER_THREAD))
    rows_per_part = max(1, -(-len(texts) // parts))
    batch = pa.Table.from_batches(table.to_batches(max_chunksize=rows_per_part))
    with lock:
        conn.register(_VIEW, batch)
        try:
            rows = conn.execute(
                f"SELECT i FROM {_VIEW} WHERE regexp_matches(t, '{pattern}')"
            ).fetchall()
        finally:
            conn.unregister(_VIEW)
    return sorted(int(r[0]) for r in rows)


def may_hold(scrubber: Scrubber, texts: Sequence[str]) -> list[int]:
    """Positions of the texts that `scrubber.might_hold` is true of, in order."""
    needles = scrubber.needles
    if sum(map(len, texts)) >= _RE2_MIN_CHARS and all(n.isascii() for n in needles):
        flagged: Sequence[int] | None
        try:
            flagged = _flag_re2(texts, _pattern(needles))
        except (duckdb.Error, pa.ArrowException, UnicodeError):
            # A text Arrow cannot encode (a lone surrogate) or a failed query: the exact test
            # of every text, below.
            flagged = range(len(texts))
        if flagged is not None:
            return [i for i in flagged if scrubber.might_hold(texts[i])]
    # One test of the joined text first: when it holds nothing, no part of it can.
    if not scrubber.might_hold("\n".join(texts)):
        return []
    return [i for i, text in enumerate(texts) if scrubber.might_hold(text)]
