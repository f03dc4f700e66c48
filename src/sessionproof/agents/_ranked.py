"""The order in which requests queued at a provider gate get a place: by the rank of the
session that sent them, then first come, first served.

Why ranks: a run keeps more sessions in flight than request slots, and served strictly in
arrival order, equal sessions advance in lockstep and all end within the last few rounds of
the run. Nothing is stored before then: a run killed at 90% has stored almost nothing, the
progress bar sits at zero, and every session's store write (and the report after them)
piles up after the last model call. Served by rank (the session's place in the run), the
first sessions run at full speed and end one after another, while the rest use the places
they leave between two calls.

Why the last ranks are shared: with strict ranks the last sessions of a run would start
only as the others end, and finish alone, at a fraction of the slots, with most of their
calls still to make (600 sessions of 9 calls at 256 slots: 27 rounds of 0.2 s instead of
22). The engine gives the last `slots` sessions of a run one rank, so they advance together
and keep every slot busy until the end: a simulation of that run still takes the 22 rounds
arrival order takes, with a quarter of its sessions done within 10 of them instead of 20.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_RANK: ContextVar[int] = ContextVar("sessionproof_request_rank", default=0)
"""The rank this task's requests queue with (lower goes first)."""


@contextmanager
def request_rank(rank: int) -> Iterator[None]:
    """Requests sent inside the block queue at provider gates with `rank`: a queued request
    of a lower rank gets a freed place first; equal ranks go first come, first served."""
    token = _RANK.set(rank)
    try:
        yield
    finally:
        _RANK.reset(token)


class RankedWaiters:
    """Requests waiting for a place: a heap of (rank, arrival, ticket).

    A ticket whose request gave up (cancelled) stays in the heap until it reaches the top,
    where it is dropped: removing it from the middle would cost a scan of the heap.
    """

    __slots__ = ("_arrivals", "_heap")

    def __init__(self) -> None:
        self._heap: list[tuple[int, int, asyncio.Future[None]]] = []
        self._arrivals = itertools.count()

    def __bool__(self) -> bool:
        """Some request still waits (abandoned tickets do not count)."""
        self._drop_abandoned()
        return bool(self._heap)

    def enqueue(self) -> asyncio.Future[None]:
        """A new ticket for the current task's request, at the current task's rank."""
        ticket: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._heap, (_RANK.get(), next(self._arrivals), ticket))
        return ticket

    def pop(self) -> asyncio.Future[None] | None:
        """The ticket to serve next (lowest rank, then the earliest), or None."""
        self._drop_abandoned()
        if not self._heap:
            return None
        return heapq.heappop(self._heap)[2]

    def _drop_abandoned(self) -> None:
        heap = self._heap
        while heap and heap[0][2].done():
            heapq.heappop(heap)
