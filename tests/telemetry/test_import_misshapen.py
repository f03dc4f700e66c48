"""OTLP files whose parts have the wrong shape (`scopeSpans` a string, resource spans of
scalars, `spans` a number): the file says what it found, one line, and nothing is stored;
a file with some good spans keeps them and names each misshapen part (issue 41.5). An import
that yields no session at all is an error too, never an empty stored run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sessionproof.errors import InputFileError
from sessionproof.importers import import_file
from sessionproof.runs import import_traces

from .test_import_malformed import T1, _session

SHAPES: dict[str, tuple[Any, str]] = {
    "scopeSpans a string": (
        [{"scopeSpans": "spans here"}],
        "resourceSpans.0.scopeSpans should be a list, is a str",
    ),
    "resource spans of scalars": (
        [1, "two", None],
        "resourceSpans.0 should be an object, is an int",
    ),
    "spans a number": (
        [{"scopeSpans": [{"spans": 3}]}],
        "resourceSpans.0.scopeSpans.0.spans should be a list of spans, is an int",
    ),
    "scope spans of scalars": (
        [{"scopeSpans": [True]}],
        "resourceSpans.0.scopeSpans.0 should be a list of spans, is a bool",
    ),
}


def _write(path: Path, resource_spans: Any) -> Path:
    path.write_text(json.dumps({"resourceSpans": resource_spans}))
    return path


@pytest.mark.slow
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_misshapen_file_says_what_it_found_and_stores_nothing(shape: str, tmp_path: Path) -> None:
    resource_spans, words = SHAPES[shape]
    path = _write(tmp_path / "t.json", resource_spans)
    with pytest.raises(InputFileError, match="no spans in the OTLP file") as raised:
        import_file(path, "auto", run_id="r")
    assert words in str(raised.value)
    store = tmp_path / "s.duckdb"
    cli = Path(sys.executable).with_name("sessionproof")
    done = subprocess.run(
        [str(cli), "import", str(path), "--store", str(store)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2 and done.stdout == ""
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: no spans in the OTLP file")
    assert not store.exists()


def test_good_spans_are_kept_beside_misshapen_parts(tmp_path: Path) -> None:
    good = {"resource": {}, "scopeSpans": [{"spans": _session(T1, "conv-1", 100)}, 5]}
    path = _write(tmp_path / "t.json", [good, {"scopeSpans": "x"}])
    result = import_file(path, "auto", run_id="r")
    assert [i.session.session_id for i in result.sessions] == ["conv-1"]
    assert sorted(e.field for e in result.skipped) == [
        "resourceSpans.0.scopeSpans.1",
        "resourceSpans.1.scopeSpans",
    ]
    assert all(e.index is None for e in result.skipped)


def test_an_empty_request_or_all_records_skipped_stores_no_run(tmp_path: Path) -> None:
    store = tmp_path / "s.duckdb"
    empty = _write(tmp_path / "empty.json", [])
    with pytest.raises(InputFileError, match="no session to import: the file holds no records"):
        import_traces(empty, store=store)
    log = tmp_path / "log.jsonl"
    log.write_text('{"messages": 5}\n[1]\n')
    with pytest.raises(InputFileError, match="2 records skipped; the first: record #0"):
        import_traces(log, fmt="openai", store=store)
    assert not store.exists()
