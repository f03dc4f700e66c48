"""MCP server behaviour, fuzzed: a real run of the real CLI against a stdio server that
misbehaves at the protocol level in seeded ways (`mcp_wild.py`). Every session ends —
judged, or `infra_error` with its reason — the run goes on, no traceback reaches the
console, nothing hangs, and the console has at most one line per problem."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import psutil
import pytest

from sessionproof.records import TerminationReason
from sessionproof.store import Store

WILD = Path(__file__).parent / "mcp_wild.py"
CASES = int(os.environ.get("SESSIONPROOF_FUZZ_MCP_CASES", "24"))
SEED = int(os.environ.get("SESSIONPROOF_FUZZ_SEED", "0"))


@pytest.mark.slow
def test_a_wild_mcp_server_costs_each_session_at_most_itself(tmp_path: Path) -> None:
    scenarios = "".join(
        f"  - id: c{i}\n    domain: wild\n    user: {{turns: [go]}}\n"
        f"    criteria:\n      gold_actions: [{{tool: act, args: {{seed: {SEED * 1000 + i}}}}}]\n"
        f"      expected_calls: [{{tool: act, args: {{seed: [{SEED * 1000 + i}]}}}}]\n"
        for i in range(CASES)
    )
    suite = tmp_path / "wild.yaml"
    suite.write_text(
        f"domains:\n  wild: {{mcp: {{command: [python, {WILD}]}}, timeout_s: 2}}\n"
        f"scenarios:\n{scenarios}"
    )
    store = tmp_path / "s.duckdb"
    src = os.environ.get("PYTHONPATH") or str(Path(__file__).parents[2] / "src")
    args = ["run", "--suite", str(suite), "--model", "oracle", "--concurrency", "4", "--json"]
    started = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "sessionproof.cli", *args, "--store", str(store)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": src},
    )
    peak = 0
    while proc.poll() is None and time.monotonic() - started < 240:
        try:
            tree = [psutil.Process(proc.pid), *psutil.Process(proc.pid).children(recursive=True)]
            peak = max(peak, sum(p.memory_info().rss for p in tree))
        except psutil.Error:
            pass
        time.sleep(0.2)
    if proc.poll() is None:
        proc.kill()
    out, err = proc.communicate()
    took = time.monotonic() - started
    assert took < 240, "the run hung"
    assert proc.returncode == 0, err
    assert "Traceback" not in err, err[:3000]
    summary = json.loads(out)
    assert summary["sessions"] == CASES
    with Store.open(store) as db:
        sessions = db.load_sessions(summary["run_id"])
    assert len(sessions) == CASES
    kinds: Counter[str] = Counter()
    for session in sessions:
        if session.termination is TerminationReason.infra_error:
            assert session.outcome is None and session.termination_detail
            kinds["infra_error"] += 1
        else:
            assert session.outcome is not None
            kinds["judged"] += 1
        for result in session.tool_results():
            kinds[f"call:{result.error_class.value if result.error_class else 'ok'}"] += 1
    # Besides the run's progress lines: one warning for the noisy server at most, never a
    # line per bad message.
    lines = err.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("[1/"))
    progress = re.compile(r"^\[\d+/\d+\] |^report: ")
    other = [line for line in lines[first:] if line and not progress.match(line)]
    assert len(other) <= 1, other
    assert err.count("not JSON-RPC") <= 1, err
    assert peak < 1024 * 1024 * 1024  # the run and its servers under 1 GiB together
    print(f"mcp fuzz: {CASES} cases in {took:.0f} s, peak {peak >> 20} MiB, {dict(kinds)}")
