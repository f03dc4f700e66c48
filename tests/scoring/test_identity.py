"""The identity-keyed cache the report's per-scenario work shares."""

from __future__ import annotations

from sessionproof.scoring._identity import ByIdentity


def test_values_are_made_once_per_objects_not_per_equal_objects() -> None:
    made: list[tuple[str, str]] = []
    cache: ByIdentity[int] = ByIdentity()
    a, b = ["0"], ["0"]  # equal, distinct: like airline "0" and retail "0"

    def make(key: tuple[str, str]) -> int:
        made.append(key)
        return len(made)

    assert cache.get((a, "x"), lambda: make(("a", "x"))) == 1
    assert cache.get((a, "x"), lambda: make(("a", "x"))) == 1
    assert cache.get((b, "x"), lambda: make(("b", "x"))) == 2
    assert cache.get((a, "y"), lambda: make(("a", "y"))) == 3
    assert made == [("a", "x"), ("b", "x"), ("a", "y")]
