"""No secret reaches the store, an export, or the printed report."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from sessionproof.cli._internal import app

from .agents import LEAKED_KEY

runner = CliRunner()


def test_keys_from_the_model_or_the_environment_are_never_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", LEAKED_KEY)
    store = tmp_path / "s.duckdb"
    result = runner.invoke(
        app,
        [
            "run",
            "--model",
            "python:tests.cli.agents:leaky",
            "--limit",
            "2",
            "--json",
            "--store",
            str(store),
        ],
    )
    assert result.exit_code == 0, result.output
    run_id = json.loads(result.stdout)["run_id"]
    shown = runner.invoke(
        app, ["show", run_id, "--session", "order-status-shipped.t0", "--store", str(store)]
    )
    assert shown.exit_code == 0 and "[redacted]" in shown.stdout
    exported = runner.invoke(app, ["export", str(tmp_path / "out"), "--store", str(store)])
    assert exported.exit_code == 0
    files = [store, *sorted((tmp_path / "out").glob("*.parquet"))]
    assert len(files) == 3
    for path in files:
        assert LEAKED_KEY.encode() not in path.read_bytes(), path
    assert LEAKED_KEY not in shown.stdout + result.stdout
    # The file may be compressed, so ask the database too (a byte search alone could miss it).
    con = duckdb.connect(str(store), read_only=True)
    tables = {"runs": "manifest", "sessions": "outcome", "events": "payload"}
    for table, column in tables.items():
        hits = con.execute(
            f"select count(*) from {table} where cast({column} as varchar) like ?",
            [f"%{LEAKED_KEY}%"],
        ).fetchone()
        assert hits == (0,), table
    redacted = con.execute(
        "select count(*) from events where cast(payload as varchar) like '%[redacted]%'"
    ).fetchone()
    assert redacted is not None and redacted[0] >= 2  # the text reply and the tool arguments
