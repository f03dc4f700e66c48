"""Model calls made on a session's behalf by someone other than the agent (the NL judge).

A judge is asked from deep inside a suite's verdict and returns only its verdicts; the calls
it made would be lost. `collect_model_calls()` opens a collector for the current context
(a context variable, so concurrent sessions on one event loop or on worker threads never mix
their calls) and `note_model_calls` adds to it; with no collector open, a note is dropped,
as it was before calls were tallied (offline scoring without a store asks no one).

The same way, `judge_seed(seed)` tells a judge asked in this context which seed its model
requests carry (`run --vary judge|agent|user|all` sets one per session; None: the model's own).
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from ..records._internal import ModelCall

_OPEN: contextvars.ContextVar[list[ModelCall] | None] = contextvars.ContextVar(
    "sessionproof_model_calls", default=None
)


@contextmanager
def collect_model_calls() -> Iterator[list[ModelCall]]:
    """A list that receives every call noted in this context until the block ends."""
    calls: list[ModelCall] = []
    token = _OPEN.set(calls)
    try:
        yield calls
    finally:
        _OPEN.reset(token)


_SEED: contextvars.ContextVar[int | None] = contextvars.ContextVar(
    "sessionproof_judge_seed", default=None
)


@contextmanager
def judge_seed(seed: int | None) -> Iterator[None]:
    """Until the block ends, a judge asked in this context seeds its requests with `seed`."""
    token = _SEED.set(seed)
    try:
        yield
    finally:
        _SEED.reset(token)


def current_judge_seed() -> int | None:
    """The seed `judge_seed` set for this context (None: none, the model samples on its own)."""
    return _SEED.get()


def note_model_calls(calls: Iterable[ModelCall]) -> None:
    """Add `calls` to the innermost open collector (none open: nothing to add them to)."""
    open_list = _OPEN.get()
    if open_list is not None:
        open_list.extend(calls)
