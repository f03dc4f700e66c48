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
            gc.enable()
