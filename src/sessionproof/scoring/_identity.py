"""A cache keyed by the identity of the objects a value was made from.

A run's report judges every trial of a scenario against the same scenario and domain spec
objects; what follows from them alone (gold replays, a domain's tools, expected calls) is
made once per object pair. Ids, not equality: scenario ids repeat across domains and files
(airline "0", retail "0"), and hashing a scenario would cost more than the work it saves.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

V = TypeVar("V")


class ByIdentity(Generic[V]):
    """Values made once per tuple of objects, looked up by those objects' ids."""

    def __init__(self) -> None:
        # The objects are held with their value, so no id can be reused by another
        # object while its entry lives.
        self._found: dict[tuple[int, ...], tuple[tuple[object, ...], V]] = {}

    def get(self, key: tuple[object, ...], make: Callable[[], V]) -> V:
        """The value for the objects of `key`, made by `make()` the first time."""
        ids = tuple(map(id, key))
        found = self._found.get(ids)
        if found is None:
            found = self._found[ids] = (key, make())
        return found[1]
