"""A resumed run keeps the provider rate limits it was started with (it ran on without them
before: `--rpm` / `--tpm` were neither stored nor passed on), unless new ones are given."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from sessionproof.cli._internal import app
from sessionproof.runs import RunConfig, _run, resume, run
from sessionproof.store import Store
from tests.runs.decided import forget
from tests.runs.spy import spy


def _killed_run(tmp_path: Path, **limits: float) -> tuple[Path, str]:
    """A finished demo run made to look killed before two of its sessions were stored."""
    store = tmp_path / "s.duckdb"
    config = RunConfig(suite="demo", model="oracle", limit=3, store=store, **limits)
    run_id = run(config).run_id
    with Store.open(store, read_only=True) as db:
        lost = sorted(r.session_id for r in db.session_rows(run_id))[:2]
    forget(store, run_id, lost)
    return store, run_id


def test_the_limits_are_stored_and_a_resumed_run_keeps_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, run_id = _killed_run(tmp_path, rpm=6000.0, tpm=5_000_000.0)
    with Store.open(store, read_only=True) as db:
        options = db.get_run(run_id).options
    assert options["rpm"] == 6000.0 and options["tpm"] == 5_000_000.0
    limits = spy(monkeypatch, _run, "rate_limiter", lambda config: (config.rpm, config.tpm))
    again = resume(run_id, store=store)
    assert len(again.sessions) == 2
    assert limits == [(6000.0, 5_000_000.0)]


def test_limits_given_again_replace_the_stored_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, run_id = _killed_run(tmp_path, rpm=6000.0)
    limits = spy(monkeypatch, _run, "rate_limiter", lambda config: (config.rpm, config.tpm))
    resume(run_id, store=store, rpm=9000.0, tpm=1_000_000.0)
    assert limits == [(9000.0, 1_000_000.0)]


def test_a_run_started_without_limits_stores_none_and_resumes_without(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, run_id = _killed_run(tmp_path)
    with Store.open(store, read_only=True) as db:
        options = db.get_run(run_id).options
    assert "rpm" not in options and "tpm" not in options
    limits = spy(monkeypatch, _run, "rate_limiter", lambda config: (config.rpm, config.tpm))
    resume(run_id, store=store)
    assert limits == [(None, None)]


def test_the_command_line_passes_new_limits_to_a_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, run_id = _killed_run(tmp_path, rpm=6000.0)
    limits = spy(monkeypatch, _run, "rate_limiter", lambda config: (config.rpm, config.tpm))
    args = ["run", "--resume", run_id, "--store", str(store), "--rpm", "9000", "--no-report"]
    done = CliRunner().invoke(app, args)
    assert done.exit_code == 0, done.output
    assert limits == [(9000.0, None)]
