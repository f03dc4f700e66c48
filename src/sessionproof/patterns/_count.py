"""Vectorised pattern counting: every subsequence up to length L, counted once per session.

A **pattern** is up to `max_len` tokens joined by links: `→` (the next token) or `…` (after
1..`max_gap` skipped tokens). Each (pattern, shape) is one integer code,
`((t1·B + t2)·B + t3)·SHAPES + shape` with B = vocabulary + 1, so counting is array work:
per chunk of sessions, build every position's code for every shape (one shifted slice per
offset), sort each row, blank repeats (once per session), and `bincount`. No Python loop runs
per session; the loops are over chunks and over the handful of offsets.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import product

import numpy as np

from ..errors import ConfigError
from ._matrix import BoolArray, IntArray, TokenMatrix

MAX_LEN = 3
"""Codes hold at most three tokens (B³ must stay within int64 with room for the shape)."""
_CHUNK_CELLS = 600_000
"""Token cells per chunk: bounds the memory of the code arrays (about 30 B per code)."""
_DENSE_LIMIT = 1 << 25
"""Above this many codes (or candidate × stratum cells) counting switches to sparse keys."""


@dataclass(frozen=True)
class Shape:
    """A pattern length and the kind of each link, with the offsets that realise it."""

    index: int
    gaps: tuple[bool, ...]
    """One per link: False `→` (adjacent), True `…` (1..max_gap skipped tokens)."""
    offsets: tuple[tuple[int, ...], ...]
    """Each tuple: the distance from one token to the next, for every link."""

    @property
    def length(self) -> int:
        """Number of tokens."""
        return len(self.gaps) + 1


def shapes(max_len: int, max_gap: int) -> list[Shape]:
    """Every shape up to `max_len` tokens (gapped links only when `max_gap` > 0)."""
    if not 1 <= max_len <= MAX_LEN:
        raise ConfigError(f"--max-len must be between 1 and {MAX_LEN}, not {max_len}")
    if max_gap < 0:
        raise ConfigError(f"--max-gap must be 0 or more, not {max_gap}")
    link_kinds = (False, True) if max_gap > 0 else (False,)
    out: list[Shape] = []
    for length in range(1, max_len + 1):
        for gaps in product(link_kinds, repeat=length - 1):
            ranges = [range(2, max_gap + 2) if g else range(1, 2) for g in gaps]
            out.append(Shape(len(out), tuple(gaps), tuple(product(*ranges))))
    return out


@dataclass(frozen=True)
class Pattern:
    """Token ids and links of one pattern."""

    tokens: tuple[int, ...]
    gaps: tuple[bool, ...]

    def render(self, vocab: list[str]) -> str:
        """`call:a → result:a:rate_limited … end:transfer`."""
        out = vocab[self.tokens[0]]
        for gap, token in zip(self.gaps, self.tokens[1:], strict=True):
            out += (" … " if gap else " → ") + vocab[token]
        return out

    def within(self, other: Pattern) -> bool:
        """True when this pattern's tokens are a proper subsequence of `other`'s."""
        if len(self.tokens) >= len(other.tokens):
            return False
        it = iter(other.tokens)
        return all(any(t == o for o in it) for t in self.tokens)


class Codec:
    """Pattern ↔ integer code for one vocabulary size and shape set."""

    def __init__(self, vocab_size: int, shape_list: list[Shape]) -> None:
        self.base = vocab_size + 1
        self.shapes = shape_list
        self.n_shapes = len(shape_list)
        self.size = self.base**MAX_LEN * self.n_shapes

    def decode(self, code: int) -> Pattern:
        """The pattern of `code`."""
        shape = self.shapes[code % self.n_shapes]
        rest = code // self.n_shapes
        b = self.base
        digits = [rest // (b * b), (rest // b) % b, rest % b]
        return Pattern(tuple(int(d) for d in digits[: shape.length]), shape.gaps)

    def chunk_codes(self, tokens: IntArray, pad: int) -> IntArray:
        """Every code of every row of `tokens`, each once per row; -1 fills the rest."""
        width = tokens.shape[1]
        b = self.base
        columns: list[IntArray] = []
        for shape in self.shapes:
            for offsets in shape.offsets:
                span = sum(offsets)
                if span >= width:
                    continue
                code = tokens[:, : width - span].copy()
                valid = code != pad
                at = 0
                for off in offsets:
                    at += off
                    nxt = tokens[:, at : width - span + at]
                    valid &= nxt != pad
                    code = code * b + nxt
                code *= b ** (MAX_LEN - shape.length)  # missing trailing tokens are 0
                code = code * self.n_shapes + shape.index
                code[~valid] = -1
                columns.append(code)
        codes = np.sort(np.concatenate(columns, axis=1), axis=1)
        repeat = np.zeros_like(codes, dtype=np.bool_)
        repeat[:, 1:] = codes[:, 1:] == codes[:, :-1]
        codes[repeat] = -1
        return codes


def chunks(matrix: TokenMatrix) -> Iterator[tuple[int, IntArray]]:
    """(first row, int64 tokens) for each chunk of rows."""
    width = max(1, matrix.tokens.shape[1])
    rows = max(1, _CHUNK_CELLS // width)
    for start in range(0, matrix.sessions, rows):
        yield start, matrix.tokens[start : start + rows].astype(np.int64)


@dataclass
class Support:
    """Every pattern seen: its code, and how many failed / passed sessions contain it."""

    codes: IntArray
    fail: IntArray
    passed: IntArray


def support(matrix: TokenMatrix, codec: Codec) -> Support:
    """Pass 1: fail and pass support of every pattern (once per session)."""
    dense = codec.size <= _DENSE_LIMIT
    fail_acc = np.zeros(codec.size if dense else 0, dtype=np.int64)
    pass_acc = np.zeros_like(fail_acc)
    sparse: list[tuple[IntArray, IntArray, IntArray]] = []
    for start, tokens in chunks(matrix):
        codes = codec.chunk_codes(tokens, matrix.pad)
        failed = matrix.failed[start : start + tokens.shape[0]]
        for label, acc in ((True, fail_acc), (False, pass_acc)):
            flat = codes[failed == label].ravel()
            flat = flat[flat >= 0]
            if dense:
                acc += np.bincount(flat, minlength=codec.size)
            else:
                uniq, counts = np.unique(flat, return_counts=True)
                sparse.append((uniq, counts, np.full(uniq.shape, label)))
    if dense:
        seen = np.flatnonzero((fail_acc + pass_acc) > 0)
        return Support(seen, fail_acc[seen], pass_acc[seen])
    if not sparse:
        empty = np.zeros(0, dtype=np.int64)
        return Support(empty, empty, empty)
    allc = np.concatenate([s[0] for s in sparse])
    cnt = np.concatenate([s[1] for s in sparse])
    lab = np.concatenate([s[2] for s in sparse])
    uniq, inverse = np.unique(allc, return_inverse=True)
    fail = np.bincount(inverse, weights=cnt * lab, minlength=len(uniq)).astype(np.int64)
    total = np.bincount(inverse, weights=cnt, minlength=len(uniq)).astype(np.int64)
    return Support(uniq, fail, total - fail)


def stratum_cells(
    matrix: TokenMatrix, codec: Codec, candidates: IntArray, informative: IntArray
) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """Pass 2: for each (candidate, informative stratum) holding the pattern, its fail and
    pass counts, as sparse arrays (candidate index, stratum index, fail, pass).

    `candidates` is sorted; `informative` maps a stratum to its index among the strata with
    both outcomes, or -1 (those add nothing to a stratified test).
    """
    k = len(candidates)
    s = int(informative.max()) + 1 if informative.size else 0
    if k == 0 or s == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty, empty
    cells = k * s
    dense = cells <= _DENSE_LIMIT
    fail_acc = np.zeros(cells if dense else 0, dtype=np.int64)
    pass_acc = np.zeros_like(fail_acc)
    keys_parts: list[tuple[IntArray, IntArray, bool]] = []
    # A dense code → candidate table makes the lookup O(1); searchsorted when it is too big.
    table: IntArray | None = None
    if codec.size <= _DENSE_LIMIT:
        table = np.full(codec.size + 1, -1, dtype=np.int64)
        table[candidates] = np.arange(k)
    for start, tokens in chunks(matrix):
        n = tokens.shape[0]
        stratum = informative[matrix.strata[start : start + n]]
        keep_rows = stratum >= 0
        if not keep_rows.any():
            continue
        codes = codec.chunk_codes(tokens[keep_rows], matrix.pad)
        if table is not None:
            idx = table[codes]  # -1 (no pattern) indexes the table's last cell, also -1
            hit = idx >= 0
        else:
            idx = np.searchsorted(candidates, codes).clip(0, k - 1)
            hit = (codes >= 0) & (candidates[idx] == codes)
        rows_stratum = np.broadcast_to(stratum[keep_rows][:, None], codes.shape)
        failed = np.broadcast_to(matrix.failed[start : start + n][keep_rows][:, None], codes.shape)
        keys = idx[hit] * s + rows_stratum[hit]
        lab = failed[hit]
        for label, acc in ((True, fail_acc), (False, pass_acc)):
            part = keys[lab == label]
            if dense:
                acc += np.bincount(part, minlength=cells)
            else:
                uniq, counts = np.unique(part, return_counts=True)
                keys_parts.append((uniq, counts, label))
    if dense:
        nz = np.flatnonzero(fail_acc + pass_acc)
        return nz // s, nz % s, fail_acc[nz], pass_acc[nz]
    allk = np.concatenate([p[0] for p in keys_parts])
    cnt = np.concatenate([p[1] for p in keys_parts])
    lab = np.concatenate([np.full(p[0].shape, p[2]) for p in keys_parts])
    uniq, inverse = np.unique(allk, return_inverse=True)
    fail = np.bincount(inverse, weights=cnt * lab, minlength=len(uniq)).astype(np.int64)
    total = np.bincount(inverse, weights=cnt, minlength=len(uniq)).astype(np.int64)
    return uniq // s, uniq % s, fail, total - fail


def presence(matrix: TokenMatrix, pattern: Pattern, codec: Codec) -> BoolArray:
    """Which sessions contain `pattern` (one pattern; for the few reported ones)."""
    shape = next(sh for sh in codec.shapes if sh.gaps == pattern.gaps)
    tokens = matrix.tokens
    width = tokens.shape[1]
    out = np.zeros(matrix.sessions, dtype=np.bool_)
    for offsets in shape.offsets:
        span = sum(offsets)
        if span >= width:
            continue
        hit = tokens[:, : width - span] == pattern.tokens[0]
        at = 0
        for off, token in zip(offsets, pattern.tokens[1:], strict=True):
            at += off
            hit &= tokens[:, at : width - span + at] == token
        out |= hit.any(axis=1)
    return out
