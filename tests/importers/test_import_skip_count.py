"""`sessionproof import` ends its list of skipped records with their count, and `--json`
lists each (issue 41.2: a bad record is skipped by name and counted)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.slow
def test_the_skipped_records_are_named_then_counted(tmp_path: Path) -> None:
    good = {"id": "ok", "messages": [{"role": "user", "content": "hi"}]}
    log = tmp_path / "log.jsonl"
    log.write_text("\n".join([json.dumps(good), "{cut", '{"messages": 5}', "[]"]) + "\n")
    cli = Path(sys.executable).with_name("sessionproof")
    done = subprocess.run(
        [str(cli), "import", str(log), "--format", "openai", "--store", str(tmp_path / "s")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert [line.split(":", 1)[0] for line in lines[:3]] == ["skipped"] * 3
    assert lines[3:] == ["3 records skipped, 0 kept with a warning; the rest stored"]
    as_json = subprocess.run(
        [
            str(cli),
            "import",
            str(log),
            "--format",
            "openai",
            "--store",
            str(tmp_path / "t"),
            "--json",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    out = json.loads(as_json.stdout)
    assert out["sessions"] == 1 and len(out["skipped"]) == 3
