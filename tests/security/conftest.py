"""Every test here starts with no registered secret, so registrations never leak between tests."""

from __future__ import annotations

import pytest

from sessionproof import _secrets


@pytest.fixture(autouse=True)
def _fresh_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_secrets, "_REGISTERED", set())
