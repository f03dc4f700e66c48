"""The documented `python:` agent example (docs/examples/order_status_agent.py) runs as its
docstring says: from its folder, `run --suite demo --model python:order_status_agent:respond`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sessionproof.records import ToolCallEvent
from sessionproof.store import Store

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
CLI = Path(sys.executable).with_name("sessionproof")


@pytest.mark.slow
def test_the_example_agent_answers_an_order_status_question(tmp_path: Path) -> None:
    store = tmp_path / "s.duckdb"
    args = ["run", "--suite", "demo", "--model", "python:order_status_agent:respond"]
    done = subprocess.run(
        [str(CLI), *args, "--limit", "1", "--json", "--no-report", "--store", str(store)],
        cwd=EXAMPLES,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["sessions"] == 1 and out["session_accuracy"] == 1.0
    with Store.open_for_reading(store) as db:
        (session,) = db.load_sessions(out["run_id"])
    calls = [(e.payload.name, e.payload.arguments) for e in session.events_of(ToolCallEvent)]
    assert ("get_order", {"order_id": "1043"}) in calls
    assert session.model == "python:order_status_agent:respond"
