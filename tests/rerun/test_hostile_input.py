"""`rerun` on input nested deeper than any parser goes: a named problem, not a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sessionproof.rerun._internal import rerun

from ._files import AIRLINE_GPT, load

TOO_DEEP = "[" * 1100 + "]" * 1100


def test_a_deep_tau2_file_reruns_what_it_can_read(tmp_path: Path) -> None:
    data = load(AIRLINE_GPT)
    data["simulations"] = data["simulations"][:3]
    data["simulations"][2]["messages"][0]["content"] = "DEEP-HERE"
    path = tmp_path / "deep.json"
    path.write_text(json.dumps(data).replace('"DEEP-HERE"', TOO_DEEP), encoding="utf-8")
    report = rerun(path, "oracle")
    assert [t.id for t in report.transcripts] == [s["id"] for s in data["simulations"][:2]]
    (skipped,) = report.skipped
    assert skipped.record.startswith("#2") and "deep" in skipped.why


@pytest.mark.slow
def test_the_rerun_command_names_a_deep_jsonl_line(tmp_path: Path) -> None:
    ask = {"role": "user", "content": "Where is order 1042?"}
    good = {"id": "ok", "domain": "demo", "outcome": True, "messages": [ask]}
    path = tmp_path / "log.jsonl"
    path.write_text('{"messages": ' + TOO_DEEP + "}\n" + json.dumps(good) + "\n")
    done = subprocess.run(
        [sys.executable, "-m", "sessionproof.cli", "rerun", str(path), "--model", "oracle",
         "--store", str(tmp_path / "s.duckdb"), "--json"],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
        check=False,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and "#0" in done.stderr and "deep" in done.stderr
    summary = json.loads(done.stdout)
    assert [t["id"] for t in summary["per_transcript"]] == ["ok"]
    assert [s["record"].split()[0] for s in summary["skipped"]] == ["#0"]


@pytest.mark.slow
def test_the_rerun_command_shows_import_warnings(tmp_path: Path) -> None:
    # A block without a `type` is skipped by the importer with a warning: a call the rerun
    # never sees must not go unmentioned.
    ask = {
        "role": "user",
        "content": [{"text": "Where is order 1042?"}, {"type": "text", "text": "hi"}],
    }
    line = {"id": "w", "domain": "demo", "outcome": True, "messages": [ask]}
    path = tmp_path / "log.jsonl"
    path.write_text(json.dumps(line) + "\n")
    done = subprocess.run(
        [sys.executable, "-m", "sessionproof.cli", "rerun", str(path), "--model", "oracle",
         "--format", "anthropic", "--store", str(tmp_path / "s.duckdb"), "--json"],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
        check=False,
    )  # fmt: skip
    assert "Traceback" not in done.stderr
    assert "warning" in done.stderr and "messages.0.content.0.type" in done.stderr
    summary = json.loads(done.stdout)
    assert [t["id"] for t in summary["per_transcript"]] == ["w"]
    (warning,) = summary["warnings"]
    assert "without a text `type`" in warning
