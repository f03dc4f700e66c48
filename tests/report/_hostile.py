"""A store with a demo run (two arms, faults) and a scored transcript full of hostile markup."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

import sessionproof
from sessionproof.cli._internal import app

EVIL = "<script>alert(1)</script><img src=x onerror=alert(2)>"


def hostile_transcript(path: Path) -> Path:
    """One OpenAI-format chat whose every text carries `EVIL`."""
    messages = [
        {"role": "user", "content": "hi " + EVIL},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "lookup", "arguments": json.dumps({"q": EVIL})},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "result " + EVIL},
        {"role": "assistant", "content": "done " + EVIL},
    ]
    path.write_text(json.dumps({"messages": messages, "outcome": {"success": False}}) + "\n")
    return path


def build_store(tmp: Path) -> tuple[Path, str, str]:
    """(store, demo run id, hostile run id)."""
    store = tmp / "s.duckdb"
    demo = sessionproof.run_suite(
        "demo", "oracle", limit=3, trials=2, store=store, arms=["baseline", "faults=40%"]
    )
    out = CliRunner().invoke(
        app,
        [
            "score",
            str(hostile_transcript(tmp / "x.jsonl")),
            "--format",
            "openai",
            "--json",
            "--store",
            str(store),
            "--no-report",
        ],
    )
    assert out.exit_code in (0, 1), out.output
    return store, demo.run_id, json.loads(out.stdout)["run_id"]
