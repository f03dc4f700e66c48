"""The collector settings a run or a report works under, and that they always come back."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

import sessionproof
from sessionproof import runs
from sessionproof._gc import TUNED_YOUNG_THRESHOLD, tuned_gc
from sessionproof.runs import _report, _run, report
from tests.runs.spy import spy


def test_nested_blocks_tune_once_and_the_outermost_restores() -> None:
    before = gc.get_threshold()
    with tuned_gc():
        tuned = gc.get_threshold()
        frozen = gc.get_freeze_count()
        assert tuned[0] > before[0] and frozen > 0
        with tuned_gc():
            assert gc.get_threshold() == tuned
        # The inner block left the outer one's settings (an unfreeze would thaw them all).
        assert gc.get_threshold() == tuned and gc.get_freeze_count() >= frozen
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0


def test_a_nested_block_freezes_what_the_outer_one_made() -> None:
    with tuned_gc():
        frozen = gc.get_freeze_count()
        made = [[i] for i in range(1000)]  # what a run makes before its sessions (tracked)
        with tuned_gc():
            assert gc.get_freeze_count() >= frozen + len(made)
        assert gc.get_freeze_count() >= frozen + len(made)
    assert gc.get_freeze_count() == 0


def test_the_settings_come_back_after_a_failure() -> None:
    before = gc.get_threshold()
    with pytest.raises(RuntimeError), tuned_gc():
        raise RuntimeError("boom")
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0


def test_a_report_is_built_under_the_tuned_collector(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "s.duckdb"
    done = sessionproof.run_suite("demo", "oracle", limit=2, store=store)
    seen = spy(monkeypatch, _report, "render_html", lambda *_: gc.get_threshold()[0])
    before = gc.get_threshold()
    report([done.run_id], tmp_path / "r.html", store)
    assert seen and seen[0] > before[0]
    assert gc.get_threshold() == before


def test_a_run_and_its_report_share_one_tuned_block(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Between two blocks the collector was back at its defaults over every session just
    # run, and collected them all on the report's first query.
    before = gc.get_threshold()
    at_report = spy(monkeypatch, _run, "report_stored", lambda *_: gc.get_threshold()[0])
    at_page = spy(monkeypatch, _run, "write_report", lambda *_, **__: gc.get_freeze_count())
    config = runs.RunConfig(suite="demo", model="oracle", limit=2, store=tmp_path / "s.duckdb")
    done = runs.run(config, html=True)
    assert done.html_report is not None
    assert at_report == [TUNED_YOUNG_THRESHOLD] and at_page[0] > 0
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0


def test_what_a_collection_in_the_block_leaves_alive_is_frozen() -> None:
    with tuned_gc():
        made = [[i] for i in range(1000)]  # a live session's history
        before = gc.get_freeze_count()
        gc.collect(0)
        # Frozen, the middle and full collections never walk the survivors again.
        assert gc.get_freeze_count() >= before + len(made)
        cycle: list[object] = []
        cycle.append(cycle)
        del cycle
        # A cycle dropped before the next young collection is still freed by it.
        assert gc.collect(0) >= 1
    assert gc.get_freeze_count() == 0
    assert not [c for c in gc.callbacks if getattr(c, "__module__", "") == "sessionproof._gc"]
