"""`too_deep`: exact at the limit for every shape, and shallow values never walked in Python."""

from __future__ import annotations

from typing import Any

import pytest

from sessionproof.importers import _json
from sessionproof.importers._json import MAX_DEPTH, too_deep


def _lists(depth: int) -> Any:
    value: Any = "leaf"
    for _ in range(depth):
        value = [value]
    return value


def _dicts(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = {"k": value, "n": 2}
    return value


def _mixed(depth: int) -> Any:
    # Innermost a list, so each dict's sibling list sits no deeper than the chain.
    value: Any = [None]
    for i in range(depth - 1):
        value = [value, 1] if i % 2 else {"a": value, "b": [3]}
    return value


@pytest.mark.parametrize("build", [_lists, _dicts, _mixed])
@pytest.mark.parametrize("limit", [1, 5, MAX_DEPTH, 254, 300])
def test_exact_at_the_limit(build: Any, limit: int) -> None:
    assert not too_deep(build(limit), limit)
    assert too_deep(build(limit + 1), limit)


def test_values_orjson_cannot_serialise_are_still_measured() -> None:
    # A 40-digit integer (the standard decoder reads it) and a non-string key both make orjson
    # refuse the value; the answer must come from the walk, not from the refusal.
    huge = 10**40
    assert not too_deep({"n": huge, "xs": _lists(MAX_DEPTH - 1)})
    assert too_deep({"n": huge, "xs": _lists(MAX_DEPTH)})
    assert not too_deep({1: _lists(3)})


def test_tuples_do_not_count_as_nesting() -> None:
    # The walk only counts dicts and lists; orjson also nests tuples, so a value it refuses
    # for tuples must be measured again, not called too deep.
    value: Any = 0
    for _ in range(MAX_DEPTH * 3):
        value = (value,)
    assert not too_deep([value])


def test_scalars_are_not_deep() -> None:
    assert not too_deep("x" * 1000)
    assert not too_deep(3)


def test_a_shallow_record_is_not_walked_in_python(monkeypatch: pytest.MonkeyPatch) -> None:
    # The Python walk costs ~3x orjson's pass on a real record; the common, shallow case
    # must be answered without it.
    def walked(value: Any, limit: int) -> bool:
        raise AssertionError("walked a shallow value")

    monkeypatch.setattr(_json, "_walk_too_deep", walked)
    record = {"messages": [{"role": "user", "content": "hi", "tool_calls": [{"a": [1]}]}] * 50}
    assert not too_deep(record)


def test_the_reused_wrapping_keeps_no_value_and_serves_every_thread() -> None:
    import threading
    import weakref

    class Marker(dict):  # type: ignore[type-arg]
        pass

    value = Marker(a=[1])
    ref = weakref.ref(value)
    assert not too_deep(value)  # a dict subclass orjson refuses: measured by the walk
    del value
    assert ref() is None  # the chain let go of it

    results: list[bool] = []

    def check(depth: int) -> None:
        for _ in range(200):
            results.append(too_deep(_lists(depth)) == (depth > MAX_DEPTH))

    threads = [threading.Thread(target=check, args=(d,)) for d in (3, MAX_DEPTH, MAX_DEPTH + 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 600 and all(results)
