"""The identity-keyed cache the report's per-scenario work shares."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.runs.spy import spy

import sessionproof
from sessionproof.runs import metrics
from sessionproof.scoring import _trace
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


def test_the_metrics_walk_each_sessions_trace_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Survival, call accuracy and attribution all read each session's traced calls; one
    # report computes them once per session, and a second report (new sessions read from
    # the store) computes them again: the cache lives as long as one metrics computation.
    store = tmp_path / "s.duckdb"
    done = sessionproof.run_suite("demo", "oracle", limit=3, trials=2, store=store)
    walked = spy(monkeypatch, _trace, "traced_calls", lambda session: session.session_id)
    first = metrics(done.run_id, store)
    assert first.arms["baseline"].calls is not None and first.arms["baseline"].survival
    assert sorted(walked) == sorted(s.session_id for s in done.sessions) and len(walked) == 6
    metrics(done.run_id, store)
    assert len(walked) == 12
