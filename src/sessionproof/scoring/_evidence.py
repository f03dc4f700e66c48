"""Evidence of failed criteria: what differs between the final and the gold state, which
state assertions do not hold, which phrases are missing, as `Mismatch` rows and a line of
text a person can read."""

from __future__ import annotations

from typing import Any

from ..records._internal import Mismatch

MAX_DETAILS = 20
"""Most mismatches one criterion lists; the text says how many more there were."""

MISSING = object()
"""What `state_at` returns for a path that does not exist (equals nothing)."""


def state_at(state: Any, path: str) -> Any:
    """The value at a dotted `path` (`orders.O1.status`, `items.0.sku`) in JSON-like data,
    or `MISSING` when the path does not exist."""
    value = state
    for part in path.split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif (
            isinstance(value, list)
            and part.lstrip("-").isdigit()
            and -len(value) <= int(part) < len(value)
        ):
            value = value[int(part)]
        else:
            return MISSING
    return value


def _join(prefix: str, key: object) -> str:
    return f"{prefix}.{key}" if prefix else str(key)


def state_diff(final: Any, gold: Any, limit: int = MAX_DETAILS) -> tuple[list[Mismatch], int]:
    """The leaves where `final` differs from `gold` (expected = gold value, actual = final
    value; `missing` when the final state lacks the path), at most `limit` of them, and how
    many differ in all. Dicts are compared key by key and lists of equal length item by
    item; anything else differing is one row."""
    rows: list[Mismatch] = []
    total = 0
    stack: list[tuple[str, Any, Any]] = [("", final, gold)]
    while stack:
        path, got, want = stack.pop()
        if got == want:
            continue
        if isinstance(got, dict) and isinstance(want, dict):
            keys = sorted(set(got) | set(want), key=str, reverse=True)
            stack.extend((_join(path, k), got.get(k, MISSING), want.get(k, MISSING)) for k in keys)
            continue
        if isinstance(got, list) and isinstance(want, list) and len(got) == len(want):
            pairs = list(enumerate(zip(got, want, strict=True)))
            stack.extend((_join(path, i), g, w) for i, (g, w) in reversed(pairs))
            continue
        total += 1
        if len(rows) < limit:
            rows.append(
                Mismatch(
                    where=path or "(state)",
                    expected=None if want is MISSING else want,
                    actual=None if got is MISSING else got,
                    missing=got is MISSING,
                )
            )
    return rows, total


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def describe(row: Mismatch) -> str:
    """One mismatch as text: `path: expected X, got Y` (or `got nothing`)."""
    got = "nothing" if row.missing else _show(row.actual)
    return f"{row.where}: expected {_show(row.expected)}, got {got}"


def describe_all(rows: list[Mismatch], total: int | None = None) -> str:
    """Mismatches as one line, saying how many more there were beyond those listed."""
    text = "; ".join(describe(r) for r in rows)
    more = (total if total is not None else len(rows)) - len(rows)
    return text + (f"; and {more} more" if more > 0 else "")


def state_assertions(state: Any, expected: dict[str, Any]) -> list[Mismatch]:
    """The state assertions (`path -> value`) that do not hold in `state`."""
    rows = []
    for path, want in expected.items():
        got = state_at(state, path)
        if got is MISSING:
            rows.append(Mismatch(where=path, expected=want, missing=True))
        elif got != want:
            rows.append(Mismatch(where=path, expected=want, actual=got))
    return rows


def missing_phrases(phrases: list[str]) -> list[Mismatch]:
    """One row per fact the agent never stated."""
    return [Mismatch(where="phrase", expected=p, missing=True) for p in phrases]
