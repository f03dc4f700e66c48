"""Throughput of the BFCL matcher on BFCL's recorded checker verdicts (7,470 entries).

Run: `.venv/bin/python benchmarks/bfcl_matcher.py [--repeat 5]`

Prints entries/s for
- `json parse`: orjson-decoding the same entries' lines (a floor for any scorer of a file),
- `greedy`: BFCL's first-match-wins pairing on the same compiled rules (what BFCL decides),
- `optimal`: `QuestionRule.judge`, parallel calls paired by maximum matching,
- `file`: `score_bfcl_file` end to end (read, parse, judge, write one verdict per line),
and the ratios of `optimal` to the two baselines. The target: at least BFCL's own
ast_checker, about 100,000 entries/s on this machine, while pairing parallel calls optimally.
Questions and answers are compiled once, outside the timed loops.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

import sessionproof.suites.bfcl as bfcl
from sessionproof.suites.bfcl._internal import (
    BfclMatcher,
    CheckKind,
    QuestionRule,
    decoded_calls,
    score_bfcl_file,
)

ROOT = Path(__file__).resolve().parents[1]
VERDICTS = ROOT / "tests" / "fixtures" / "bfcl" / "bfcl_ast_checker_verdicts.jsonl"
DATA = Path(bfcl.__file__).parent / "data"
CATEGORIES = ("simple_python", "multiple", "parallel", "parallel_multiple")


def _greedy(rule: QuestionRule, output: Any) -> bool:
    # BFCL's pairing: each expected call takes the first unused output call that fits.
    calls = decoded_calls(output)
    if calls is None:
        return False
    if rule.kind is not CheckKind.parallel:
        return rule.judge(output).valid
    if len(calls) != len(rule.calls):
        return False
    used = [False] * len(calls)
    for expected in rule.calls:
        for j, call in enumerate(calls):
            if not used[j] and expected.check(*call) is None:
                used[j] = True
                break
        else:
            return False
    return True


def _best_rate(count: int, repeat: int, body: Callable[[], None]) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        body()
        best = min(best, time.perf_counter() - start)
    return count / best


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="best of N runs (default 5)")
    repeat = parser.parse_args().repeat

    rules: dict[str, QuestionRule] = {}
    for category in CATEGORIES:
        name = f"BFCL_v4_{category}.json"
        matcher = BfclMatcher(DATA / name, DATA / "possible_answer" / name)
        rules.update({k: v for k, v in matcher.rules.items() if isinstance(v, QuestionRule)})
    raw_lines = VERDICTS.read_bytes().splitlines()
    rows = [orjson.loads(line) for line in raw_lines]
    entries = [(rules[r["id"]], r["model_output_decoded"]) for r in rows]
    n = len(entries)

    def parse() -> None:
        for line in raw_lines:
            orjson.loads(line)

    def greedy() -> None:
        for rule, output in entries:
            _greedy(rule, output)

    def optimal() -> None:
        for rule, output in entries:
            rule.judge(output)

    parse_rate = _best_rate(n, repeat, parse)
    greedy_rate = _best_rate(n, repeat, greedy)
    optimal_rate = _best_rate(n, repeat, optimal)

    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "in.jsonl"
        src.write_bytes(
            b"\n".join(
                orjson.dumps({"id": r["id"], "model_output_decoded": r["model_output_decoded"]})
                for r in rows
            )
        )
        by_category = {c: [r for r in rows if r["category"] == c] for c in CATEGORIES}
        files = {}
        for category, subset in by_category.items():
            path = Path(tmp) / f"{category}.jsonl"
            path.write_bytes(b"\n".join(orjson.dumps(r) for r in subset))
            files[category] = path

        def whole_files() -> None:
            for category, path in files.items():
                name = f"BFCL_v4_{category}.json"
                score_bfcl_file(
                    path, DATA / name, DATA / "possible_answer" / name, Path(tmp) / "out.jsonl"
                )

        file_rate = _best_rate(n, repeat, whole_files)

    print(f"entries: {n} (best of {repeat})")
    print(f"  json parse  {parse_rate:>12,.0f} entries/s")
    print(f"  greedy      {greedy_rate:>12,.0f} entries/s   (BFCL's pairing, same rules)")
    print(f"  optimal     {optimal_rate:>12,.0f} entries/s   (ours: maximum matching)")
    print(f"  file        {file_rate:>12,.0f} entries/s   (score_bfcl_file, compile included)")
    print(f"optimal / greedy     = {optimal_rate / greedy_rate:.2f}")
    print(f"optimal / json parse = {optimal_rate / parse_rate:.2f}")
    print(f"optimal vs 100,000/s (BFCL's ast_checker here) = {optimal_rate / 100_000:.2f}x")


if __name__ == "__main__":
    main()
