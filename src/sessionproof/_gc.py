"""Pausing the cyclic garbage collector around bulk work."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_gc() -> Iterator[None]:
    """The cyclic garbage collector off for the block, back as it was after it.

    Scoring a file builds millions of objects that all live until the end (the parsed
    document, every session's events), and each full collection walks all of them again:
    about a third of the CPU of `score` on a thousand tau2 sessions; a bulk store write
    allocates a few hundred thousand short-lived containers over the same live sessions.
    Nearly all of them are freed by reference counting; the few cycles made meanwhile wait
    for the next collection after the block. Process-wide, so other threads collect no
    cycles meanwhile either.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            _age_all()
            gc.enable()


def _age_all() -> None:
    """Move every tracked object into the oldest generation without walking any of them.

    After a paused block the young generation holds everything the block made (millions of
    objects after scoring a thousand sessions), and the first allocation once the collector is
    back walks them all in one young collection: ~0.1 s at the end of every `score`, for
    objects that are nearly all alive. Freezing and unfreezing splices the lists instead, so
    they wait, like any old object, for the next full collection. Inside a `tuned_gc` block
    they stay frozen until it ends, with what it froze.
    """
    gc.freeze()
    if _depth == 0:
        gc.unfreeze()


# A run's sessions allocate steadily and keep most of it until they end; at the default
# threshold (700) young collections run hundreds of times over the same live histories, and
# each full one also walks every module, schema and base DB loaded before the run. A young
# collection walks what is alive at that moment, so the shorter the window the more objects
# of a few hundred ms (a request awaiting its reply) are walked and frozen: at 10,000 a
# 600-session tau2 run at 256 in flight made ~60 collections (~175-205 ms), at 50,000 ~28
# (~115-160 ms), and the shared scale check's ratio rose ~2 points (median of 6 alternating).
TUNED_YOUNG_THRESHOLD = 50_000
_depth = 0
"""`tuned_gc` blocks under way, in every thread (one unfreeze thaws all: every block in
freezes, the first one in tunes, and only the last one out thaws and restores)."""
_before = gc.get_threshold()


def _freeze_survivors(phase: str, info: dict[str, int]) -> None:
    """After each collection inside a `tuned_gc` block, freeze what it left alive.

    What outlives a young collection in a run is a live session's history, alive until the
    session ends; kept in the older generations, each middle collection walked all of it
    again (a 600-session tau2 run met one of ~80 ms at 256 requests in flight, in the burst
    where the first sessions end, and it freed 6 objects). Frozen, every object is walked
    once, in the young collection after it was made, which still frees the short-lived
    cycles; the rest wait for the block's end, like what it froze on entry.
    """
    if phase == "stop" and _depth > 0:
        gc.freeze()


@contextmanager
def tuned_gc() -> Iterator[None]:
    """The collector tuned for work that builds much and keeps it (a run's sessions, a
    report's loaded runs): what is alive when it starts (modules, the suite, base DBs) is
    frozen out of every collection, young collections run after 50,000 net allocations
    rather than 700, and what each of them leaves alive is frozen too
    (`_freeze_survivors`); all undone after the block.

    In a 600-session tau2 run at 256 requests in flight the first two took collection time
    from ~0.85 s (two full collections of ~0.25 s each) to ~0.25 s. Cycles are still
    collected, only less often. Forked worker processes inherit these settings (and frozen
    objects stay unwritten by the collector, so their pages stay shared).
    """
    global _depth, _before
    if _depth == 0:
        _before = gc.get_threshold()
        gc.set_threshold(TUNED_YOUNG_THRESHOLD, _before[1], _before[2])
        gc.callbacks.append(_freeze_survivors)
    # A nested block freezes too: what the outer block made meanwhile (a run's agents and
    # their clients, before its sessions start) is kept out of collections as well.
    gc.freeze()
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
        if _depth == 0:
            gc.callbacks.remove(_freeze_survivors)
            gc.set_threshold(*_before)
            gc.unfreeze()
