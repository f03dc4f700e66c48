"""Replaying tool calls into a fresh tau domain: the session's recorded calls, and gold actions.

Only tools that can write are run (a read cannot move the state), in the order they were
made, each with its recorded arguments; calls that failed are run too, because a failing
write may have changed the state before failing, exactly as it did in the recording. A call
with no recorded reply, or arguments that never parsed, is skipped: the domain never ran it.
Gold states are cached per (domain, actions), so a task replays its gold once per process.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import orjson

from ...domains import Domain, DomainSpec
from .._replay import replay_into
from .._replay import replayed_calls as replayed_calls
from ._tau import TauDomain

T = TypeVar("T")
_BY_ID_LIMIT = 4096
"""Task objects `GoldCache.parsed` recognises by identity at most (then it starts over)."""


@dataclass(frozen=True)
class GoldState:
    """The state after a task's reference actions, and the actions that failed."""

    state_hash: str
    failures: tuple[str, ...]
    changed: tuple[tuple[str, str], ...] = ()
    """(table, key) of each record the gold actions left different from the base DB."""
    records: Mapping[tuple[str, str], Any] | None = field(default=None, compare=False)
    """The gold state's record at each key the gold actions wrote (None: removed), with
    `base` holding every other; None when the domain keeps no such account (not a tau
    domain). Enough to name the records a session got wrong without replaying the gold
    again for every session that did."""
    base: Any = field(default=None, compare=False)
    """The shared base DB (`SharedBase`) the gold actions were replayed on."""


def replay(
    spec: DomainSpec, calls: Iterable[tuple[str, dict[str, Any]]]
) -> tuple[Domain[Any], list[str]]:
    """A fresh domain after running the write calls; the failures met on the way."""
    domain = spec.create()
    if isinstance(domain, TauDomain):
        # A tau domain's raw value is enough: rendering it as the agent saw it (json.dumps
        # of model_dump) changes nothing and cost a quarter of judging a session.
        return domain, replay_into(
            domain, calls, writes=domain.write_tools.__contains__, run=domain.apply
        )
    return domain, replay_into(domain, calls)


class GoldCache:
    """Gold states by (domain name, canonical actions), and tasks parsed once by content.
    Safe to share between threads."""

    def __init__(self) -> None:
        self._states: dict[tuple[str, bytes], GoldState] = {}
        self._parsed: dict[tuple[Callable[[Any], Any], bytes], Any] = {}
        self._by_id: dict[int, tuple[Any, Callable[[Any], Any], Any]] = {}
        self._lock = threading.Lock()

    def parsed(self, raw: Any, build: Callable[[Any], T]) -> T:
        """`build(raw)` for a JSON-like task `raw`, built once per content (a file's trials
        of one task share it): the result is shared, so it must not be changed. The same
        `raw` object is recognised before its content is (sorting and serialising a task
        again for every session cost more than half of finding its gold state), so `raw`
        must not be changed in place once passed here (a task read from a file never is).
        """
        seen = self._by_id.get(id(raw))
        if seen is not None and seen[0] is raw and seen[1] is build:
            return seen[2]  # type: ignore[no-any-return]
        try:
            key = (build, orjson.dumps(raw, option=orjson.OPT_SORT_KEYS))
        except TypeError:  # not plain JSON (an integer past 64 bits...): built each time
            return build(raw)
        found = self._parsed.get(key)
        if found is None:
            found = build(raw)
        with self._lock:
            self._parsed[key] = found
            if len(self._by_id) >= _BY_ID_LIMIT:
                self._by_id.clear()  # a long-lived cache keeps no task alive for ever
            # `raw` is kept with its id, so the id cannot be reused by another object.
            self._by_id[id(raw)] = (raw, build, found)
        return found  # type: ignore[no-any-return]

    def get(self, spec: DomainSpec, actions: Sequence[tuple[str, dict[str, Any]]]) -> GoldState:
        """The gold state of `actions` in `spec`'s domain (computed on first use)."""
        blob = orjson.dumps([[n, a] for n, a in actions], option=orjson.OPT_SORT_KEYS)
        key = (spec.name, hashlib.blake2b(blob, digest_size=16).digest())
        found = self._states.get(key)
        if found is None:
            domain, failures = replay(spec, actions)
            found = GoldState(domain.state_hash(), tuple(failures))
            if isinstance(domain, TauDomain):
                cow = domain.cow
                written = {
                    (table, key): getattr(domain.db, table).get(key)
                    for table, keys in cow.dirty.items()
                    for key in keys
                }
                found = GoldState(
                    found.state_hash,
                    found.failures,
                    tuple(cow.changed_records()),
                    written,
                    cow.base,
                )
            with self._lock:
                self._states[key] = found
        return found


DEFAULT_GOLD_CACHE = GoldCache()
"""The process-wide gold cache the run-time verdicts use."""
