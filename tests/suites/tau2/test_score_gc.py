"""`score_transcripts` pauses the cyclic collector while it works, and always restores it."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sessionproof.suites import _score
from sessionproof.suites._score import score_transcripts

from ._data import RETAIL_GPT


@pytest.fixture(autouse=True)
def _gc_enabled() -> Iterator[None]:
    gc.enable()
    yield
    gc.enable()


def test_no_full_collections_while_scoring(monkeypatch: pytest.MonkeyPatch) -> None:
    # A full collection walks every object scoring keeps alive (a third of its CPU on a
    # thousand sessions); none may run while importing and judging.
    seen: list[bool] = []
    real = _score.import_file

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(gc.isenabled())
        return real(*args, **kwargs)

    monkeypatch.setattr(_score, "import_file", spy)
    report = score_transcripts(RETAIL_GPT, "tau2", None, None)
    assert report.sessions > 0 and seen == [False]
    assert gc.isenabled()


def test_the_collector_is_back_after_a_failure(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(_score, "import_file", broken)
    with pytest.raises(RuntimeError):
        score_transcripts(tmp_path / "x.json", "tau2", None, None)
    assert gc.isenabled()


def test_a_caller_that_paused_it_keeps_it_paused() -> None:
    gc.disable()
    score_transcripts(RETAIL_GPT, "tau2", None, None)
    assert not gc.isenabled()
