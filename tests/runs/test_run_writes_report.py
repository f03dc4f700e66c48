"""`run(..., html=True)` writes the run's report itself, while its store is open, from the
sessions the store kept as it wrote them: the same page a later `report` makes from the
file, with no session decoded twice; a report that cannot be written is named, the run kept."""

from __future__ import annotations

from pathlib import Path

import pytest

import sessionproof.store._store as store_module
from sessionproof import runs
from sessionproof.records import Session
from sessionproof.runs import RunConfig
from sessionproof.runs._internal import default_report_path
from sessionproof.store import Store


def _config(store: Path) -> RunConfig:
    return RunConfig(suite="demo", model="oracle", limit=4, trials=2, faults="20%", store=store)


def test_the_runs_own_report_is_the_page_a_later_report_makes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "s.duckdb"
    decoded: list[str] = []
    original = store_module.session_from_rows

    def counting(*args: object) -> Session:
        session = original(*args)  # type: ignore[arg-type]
        decoded.append(session.session_id)
        return session

    monkeypatch.setattr(store_module, "session_from_rows", counting)
    done = runs.run(_config(store), html=True)
    assert done.html_error is None and done.html_report is not None
    written = Path(done.html_report)
    assert written == default_report_path(store, done.run_id) and written.exists()
    assert written == tmp_path / "s-reports" / f"{done.run_id}.html"
    assert decoded == []  # every session the report read was kept as it was written
    later = runs.report([done.run_id], tmp_path / "later.html", store)
    assert len(decoded) == 8  # a later reader decodes them from the file
    assert written.read_text(encoding="utf-8") == later.read_text(encoding="utf-8")


def test_without_html_no_report_is_written(tmp_path: Path) -> None:
    done = runs.run(_config(tmp_path / "s.duckdb"))
    assert done.html_report is None and done.html_error is None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.duckdb"]


def test_a_report_that_cannot_be_written_is_named_and_the_run_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "a-directory.html"
    blocked.mkdir()
    monkeypatch.setattr(runs._run, "default_report_path", lambda store, run_id: blocked)
    store = tmp_path / "s.duckdb"
    done = runs.run(_config(store), html=True)
    assert done.html_report is None
    assert done.html_error is not None and "cannot write the report" in done.html_error
    with Store.open_for_reading(store) as db:
        assert len(db.load_sessions(done.run_id)) == 8


class _Imports:
    """Stands in for `importlib` in `runs._run`: records what is imported, on which thread."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []

    def import_module(self, name: str) -> object:
        import importlib
        import threading

        self.seen.append((name, threading.current_thread().name))
        return importlib.import_module(name)


def test_what_only_the_report_needs_is_imported_on_a_side_thread_as_the_run_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spy = _Imports()
    monkeypatch.setattr(runs._run, "importlib", spy)
    done = runs.run(_config(tmp_path / "s.duckdb"), html=True)
    assert done.html_error is None
    assert [name for name, _ in spy.seen] == list(runs._run.REPORT_IMPORTS)
    assert {thread for _, thread in spy.seen} == {"sessionproof-report-imports"}


def test_no_report_no_early_imports_and_a_missing_one_costs_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spy = _Imports()
    monkeypatch.setattr(runs._run, "importlib", spy)
    runs.run(_config(tmp_path / "a.duckdb"))
    assert spy.seen == []
    monkeypatch.setattr(runs._run, "REPORT_IMPORTS", ("sessionproof_no_such_module",))
    done = runs.run(_config(tmp_path / "b.duckdb"), html=True)
    assert spy.seen == [("sessionproof_no_such_module", "sessionproof-report-imports")]
    assert done.html_error is None and done.html_report is not None
