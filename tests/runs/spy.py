"""Watching what a use case calls, for tests that count loads or read settings mid-call."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest


def spy(
    monkeypatch: pytest.MonkeyPatch, owner: object, name: str, note: Callable[..., Any]
) -> list[Any]:
    """Replace `owner.name` (a function, or a method on a class) by one that appends
    `note(*args, **kwargs)` to the returned list, then calls the original."""
    seen: list[Any] = []
    real = getattr(owner, name)

    def watched(*args: Any, **kwargs: Any) -> Any:
        seen.append(note(*args, **kwargs))
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, watched)
    return seen
