"""`paused_gc`: the collector off for a bulk block, and nothing left for it to walk after."""

from __future__ import annotations

import gc
import weakref

import pytest

from sessionproof._gc import paused_gc, tuned_gc


def _young(made: list[list[int]]) -> int:
    """How many of `made` the youngest generation still holds."""
    ids = {id(x) for x in made}
    return sum(id(o) in ids for o in gc.get_objects(generation=0))


@pytest.mark.slow
def test_what_a_paused_block_made_is_old_after_it_and_the_collector_is_back() -> None:
    assert gc.isenabled()
    with paused_gc():
        assert not gc.isenabled()
        made = [[i] for i in range(20_000)]
        assert _young(made) == len(made)
    # No young collection will walk them again: they wait for a full one, like old objects.
    assert gc.isenabled()
    assert _young(made) == 0
    oldest = {id(o) for o in gc.get_objects(generation=2)}
    assert all(id(x) in oldest for x in made)
    assert gc.get_freeze_count() == 0


def test_inside_a_tuned_block_they_stay_frozen_until_it_ends() -> None:
    with tuned_gc():
        frozen = gc.get_freeze_count()
        with paused_gc():
            made = [[i] for i in range(1000)]
        assert gc.get_freeze_count() >= frozen + len(made)
        assert _young(made) == 0
    assert gc.get_freeze_count() == 0


def test_a_disabled_collector_stays_disabled_and_untouched() -> None:
    gc.disable()
    try:
        with paused_gc():
            made = [[i] for i in range(100)]
        assert not gc.isenabled()
        assert _young(made) == len(made)  # the caller's own pause: nothing moved
    finally:
        gc.enable()


@pytest.mark.slow
def test_cycles_made_in_the_block_are_still_collected() -> None:
    class Node:
        other: object = None

    with paused_gc():
        a, b = Node(), Node()
        a.other, b.other = b, a
        gone = weakref.ref(a)
        del a, b
    assert gone() is not None  # a cycle: only the collector frees it
    gc.collect()
    assert gone() is None
