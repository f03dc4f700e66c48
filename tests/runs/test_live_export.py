"""The live OTLP export is reachable from Python: `RunConfig(export=...)`, `run_suite(export=...)`
and `resume(export=...)` send each session's spans to a real OTLP/HTTP receiver as
`sessionproof run --otlp-endpoint` does, and the two paths send the same sessions."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

import sessionproof
from sessionproof.runs import OtlpExport, RunConfig, resume, run
from tests.telemetry.test_otlp_receiver import (
    _attrs,
    receiver,  # noqa: F401  (the fixture)
)
from tests.telemetry.test_otlp_receiver import _spans as received_spans

pytestmark = pytest.mark.slow  # each test starts the export's worker process (~1 s)

Received = tuple[str, list[tuple[str, dict[str, str], bytes]]]


def _sessions(received: list[tuple[str, dict[str, str], bytes]]) -> dict[str, str]:
    """Session id → run id of every root span the receiver got."""
    found: dict[str, str] = {}
    for span in received_spans(received):
        if span.name.startswith("invoke_agent "):
            attrs = _attrs(span.attributes)
            found[str(attrs["gen_ai.conversation.id"])] = str(attrs["sessionproof.run.id"])
    return found


def test_run_config_export_sends_every_session_with_its_headers(
    tmp_path: Path,
    receiver: Received,  # noqa: F811
) -> None:
    url, received = receiver
    export = OtlpExport(endpoint=url, headers={"x-team": "qa"})
    report = run(RunConfig(model="oracle", limit=3, store=tmp_path / "s.duckdb", export=export))
    assert _sessions(received) == {s.session_id: report.run_id for s in report.sessions}
    assert received and all(h.get("x-team") == "qa" for _, h, _ in received)


def test_run_suite_export_and_the_cli_send_the_same_sessions(
    tmp_path: Path,
    receiver: Received,  # noqa: F811
) -> None:
    url, received = receiver
    api = sessionproof.run_suite(
        "demo", "oracle", limit=3, seed=5, store=tmp_path / "a.duckdb", export={"endpoint": url}
    )
    from_api = _sessions(received)
    assert set(from_api.values()) == {api.run_id}
    received.clear()
    cli = Path(sys.executable).with_name("sessionproof")
    args = ["run", "--suite", "demo", "--model", "oracle", "--limit", "3", "--seed", "5"]
    args += ["--store", str(tmp_path / "c.duckdb"), "--otlp-endpoint", url, "--no-report"]
    done = subprocess.run(
        [str(cli), *args],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    from_cli = _sessions(received)
    assert sorted(from_cli) == sorted(from_api) and len(from_api) == 3
    assert api.run_id not in from_cli.values()


def test_a_resumed_run_exports_the_sessions_it_runs(
    tmp_path: Path,
    receiver: Received,  # noqa: F811
) -> None:
    url, received = receiver
    store = tmp_path / "s.duckdb"
    first = run(RunConfig(model="oracle", limit=3, store=store))
    lost = sorted(s.session_id for s in first.sessions)[1]
    con = duckdb.connect(str(store))
    for table in ("events", "sessions"):
        con.execute(
            f"DELETE FROM {table} WHERE run_id = ? AND session_id = ?", [first.run_id, lost]
        )
    con.execute("UPDATE runs SET status = 'running' WHERE run_id = ?", [first.run_id])
    con.close()
    resume(first.run_id, store=store, export=OtlpExport(endpoint=url))
    assert _sessions(received) == {lost: first.run_id}
