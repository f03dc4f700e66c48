"""OTLP times past 64 bits (a `startTimeUnixNano` of 400 digits) and integers past float
range where a float is read: the span is kept, the time read as unknown and named in a
warning; `import`, `score` and `patterns` finish instead of dying with OverflowError
(issue 41.4)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sessionproof.importers import import_file
from sessionproof.runs import import_traces

from .test_import_malformed import T1, T2, _file, _session


def _huge_times(tmp_path: Path) -> Path:
    spans: list[dict[str, Any]] = _session(T1, "conv-1", 100) + _session(T2, "conv-2", 200)
    spans[5]["startTimeUnixNano"] = "9" * 400
    spans[6]["endTimeUnixNano"] = str(-(10**30))
    spans[7]["events"] = [{"name": "note", "timeUnixNano": 7 * 10**50, "attributes": []}]
    spans[5]["attributes"].append(
        {"key": "sessionproof.latency_s", "value": {"intValue": "9" * 350}}
    )
    return _file(tmp_path, spans)


def test_times_past_64_bits_are_unknown_and_named(tmp_path: Path) -> None:
    result = import_file(_huge_times(tmp_path), "auto", run_id="r")
    assert sorted(i.session.session_id for i in result.sessions) == ["conv-1", "conv-2"]
    assert result.skipped == []
    warned = {(e.index, e.field) for e in result.errors}
    assert warned == {
        (5, "startTimeUnixNano"),
        (6, "endTimeUnixNano"),
        (7, "events.0.timeUnixNano"),
    }
    assert all("outside OTLP's unsigned 64-bit" in e.message for e in result.errors)
    assert "(400 digits)" in str(result.errors[0]) and len(str(result.errors[0])) < 200


def test_import_stores_them_and_the_times_are_finite(tmp_path: Path) -> None:
    report = import_traces(_huge_times(tmp_path), store=tmp_path / "s.duckdb")
    assert report.summary.sessions == 2 and not [e for e in report.errors if e.fatal]


@pytest.mark.slow
@pytest.mark.parametrize("command", ["import", "score", "patterns"])
def test_the_commands_reading_traces_finish_without_a_traceback(
    command: str, tmp_path: Path
) -> None:
    cli = Path(sys.executable).with_name("sessionproof")
    path = _huge_times(tmp_path)
    done = subprocess.run(
        [str(cli), command, str(path), "--store", str(tmp_path / "s.duckdb")],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    assert "Traceback" not in done.stderr and "OverflowError" not in done.stderr
    assert done.returncode in (0, 1), done.stderr
    if command == "import":
        assert json.dumps("startTimeUnixNano")[1:-1] in done.stderr
