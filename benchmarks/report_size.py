"""Size and open time of the HTML report of a ~1,000-session run, in Debian's headless chromium.

Run: `.venv/bin/python benchmarks/report_size.py [--trials 32]`

Runs the demo suite (16 scenarios) with the oracle agent, `--trials` trials in two arms
(baseline and faults=20%: 1,024 sessions at the default), writes its report and prints the
file size and the time chromium takes to load it (navigation until the load event, then until
the first session opens from the verdict grid), median of three loads. The issue's targets:
under 5 MB and under 2 s.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import sessionproof
from sessionproof.runs import report

ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def _open_times(page_path: Path, repeat: int) -> list[tuple[float, float]]:
    from playwright.sync_api import sync_playwright

    out = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        for _ in range(repeat):
            page = browser.new_page()
            t0 = time.perf_counter()
            page.goto(page_path.as_uri(), wait_until="load")
            loaded = time.perf_counter() - t0
            page.locator("#grid a.c").first.click()
            page.locator("#drill-title").wait_for()
            out.append((loaded, time.perf_counter() - t0))
            page.close()
        browser.close()
    return out


def main() -> None:
    """Build the run, write its report, time it in the browser."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=32)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "s.duckdb"
        t0 = time.perf_counter()
        done = sessionproof.run_suite(
            "demo", "oracle", trials=args.trials, store=store, arms=["baseline", "faults=20%"]
        )
        ran = time.perf_counter() - t0
        t0 = time.perf_counter()
        path = report([done.run_id], Path(tmp) / "r.html", store)
        written = time.perf_counter() - t0
        size = path.stat().st_size
        times = _open_times(path, args.repeat)
        sessions = len(sessionproof.runs.metrics(done.run_id, store).arms) and sum(
            m.sessions for m in sessionproof.runs.metrics(done.run_id, store).arms.values()
        )
    load = statistics.median(t for t, _ in times)
    drill = statistics.median(t for _, t in times)
    print(f"sessions {sessions}; run {ran:.1f} s; report written in {written:.1f} s")
    print(f"report size {size / 1e6:.2f} MB (target < 5 MB)")
    print(f"chromium load {load:.2f} s, load + open a session {drill:.2f} s (target < 2 s)")


if __name__ == "__main__":
    main()
