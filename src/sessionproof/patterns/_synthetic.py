"""Synthetic session sets with planted precursors, to validate the miner against known causes.

Each session is `length` noise tokens drawn uniformly from `noise` tool tokens, in one of
`scenarios` scenarios. Planted patterns (`PLANTS`) are written into a share of the sessions,
each in its own segment; a session holding one fails with `plant_fail`, any other with its
scenario's base rate. The tokens of every plant also appear alone, at random, in a share of
sessions (decoys), so a sub-pattern is not as good as the whole. A **confounder** token marks
every session of the hard scenarios (a fifth of them, failing at `hard_fail`) and no other:
pooled it looks like a strong precursor; within scenario it cannot contrast anything.
On `null` data the labels ignore the sequences entirely (one base rate for all).

Built with array operations only, so the benchmark can make a million sessions in seconds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._matrix import TokenMatrix

PLANTS: tuple[tuple[tuple[str, ...], tuple[int, ...]], ...] = (
    (("call:book_reservation", "result:book_reservation:rate_limited"), (1,)),
    (("call:get_order", "result:get_order:ok", "call:cancel_order"), (1, 1)),
    (("result:update_address:validation_error", "agent:text"), (2,)),
)
"""(tokens, offsets): offset 1 is adjacent (`→`), 2 skips one token (`…`)."""
CONFOUNDER = "call:escalate_hard_case"


@dataclass
class Planted:
    """A synthetic set: the matrix and the patterns rendered as the miner renders them."""

    matrix: TokenMatrix
    planted: list[str]
    confounder: str


def render_plant(tokens: tuple[str, ...], offsets: tuple[int, ...]) -> str:
    """The miner's spelling of a plant."""
    out = tokens[0]
    for off, token in zip(offsets, tokens[1:], strict=True):
        out += (" … " if off > 1 else " → ") + token
    return out


def planted_sessions(
    n: int,
    seed: int = 0,
    *,
    length: int = 30,
    noise: int = 40,
    scenarios: int = 50,
    plant_rate: float = 0.08,
    plant_fail: float = 0.85,
    base_fail: float = 0.3,
    hard_fail: float = 0.8,
    decoy_rate: float = 0.05,
    null: bool = False,
) -> Planted:
    """`n` sessions of `length` tokens with `PLANTS` planted (rules: the module docstring)."""
    rng = np.random.default_rng(seed)
    vocab = [f"call:tool_{i}" for i in range(noise)]
    plant_ids: list[list[int]] = []
    for tokens, _ in PLANTS:
        ids = []
        for t in tokens:
            if t not in vocab:
                vocab.append(t)
            ids.append(vocab.index(t))
        plant_ids.append(ids)
    confounder = len(vocab)
    vocab.append(CONFOUNDER)
    matrix = rng.integers(0, noise, size=(n, length), dtype=np.int32)
    rows = np.arange(n)
    segment = length // (len(PLANTS) + 1)
    # Decoys first: the plants and the confounder overwrite them where they land.
    for ids in plant_ids:
        for tid in ids:
            hit = rows[rng.random(n) < decoy_rate]
            matrix[hit, rng.integers(0, length, size=hit.size)] = tid
    planted_any = np.zeros(n, dtype=np.bool_)
    for k, ((_, offsets), ids) in enumerate(zip(PLANTS, plant_ids, strict=True)):
        hit = rows[rng.random(n) < plant_rate]
        span = sum(offsets)
        start = k * segment + rng.integers(0, segment - span, size=hit.size)
        matrix[hit, start] = ids[0]
        at = start
        for off, tid in zip(offsets, ids[1:], strict=True):
            at = at + off
            matrix[hit, at] = tid
        planted_any[hit] = True
    strata = rng.integers(0, scenarios, size=n).astype(np.int64)
    hard = strata < max(1, scenarios // 5)
    last = len(PLANTS) * segment
    matrix[hard, rng.integers(last, length, size=int(hard.sum()))] = confounder
    if null:
        p_fail = np.full(n, base_fail)
    else:
        p_fail = np.where(hard, hard_fail, base_fail)
        p_fail = np.where(planted_any, plant_fail, p_fail)
    failed = rng.random(n) < p_fail
    return Planted(
        matrix=TokenMatrix(
            tokens=matrix,
            failed=failed,
            strata=strata,
            vocab=vocab,
            stratum_names=[f"scenario-{i}" for i in range(scenarios)],
        ),
        planted=[render_plant(tokens, offsets) for tokens, offsets in PLANTS],
        confounder=CONFOUNDER,
    )


def _tokens(pattern: str) -> list[str]:
    return pattern.replace(" … ", " → ").split(" → ")


def _part_of(found: str, plant: str) -> bool:
    it = iter(_tokens(plant))
    return all(any(t == p for p in it) for t in _tokens(found))


def planted_scores(found: list[str], planted: list[str]) -> tuple[float, float]:
    """(recall, precision) of `found` (patterns with q < alpha) against `planted`.

    A finding recovers a plant when it is the plant or a piece of it (its tokens a
    subsequence of the plant's): the miner drops a super-pattern that adds nothing over its
    sub-pattern, so `a … c` may stand for a planted `a → b → c` whose every session it holds.
    Anything else found is a false discovery.
    """
    hits = sum(any(_part_of(f, p) for f in found) for p in planted)
    true = sum(any(_part_of(f, p) for p in planted) for f in found)
    return hits / len(planted), (true / len(found) if found else 1.0)
