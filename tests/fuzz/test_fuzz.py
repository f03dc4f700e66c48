"""The fuzz suite at test size: every input kind gets a few dozen seeded cases through the
real CLI; none may end in a traceback or a hang. `benchmarks/fuzz.py` runs the same cases by
the thousand. SESSIONPROOF_FUZZ_CASES and SESSIONPROOF_FUZZ_SEED scale or vary the sample."""

from __future__ import annotations

import os

import pytest

from ._cases import KINDS
from ._pool import WorkerPool
from ._seeds_traces import inspect_log
from ._tally import RECORDED, tally

CASES = {
    "tau2": 10,
    "tau-bench": 12,
    "openai": 12,
    "anthropic": 12,
    "bfcl-outputs": 30,
    "bfcl-questions": 30,
    "bfcl-answers": 30,
    "suite": 30,
    "agent": 30,
    "otlp-json": 30,
    "otlp-proto": 30,
    "atif": 24,
    "inspect": 16,
}
"""Cases per kind: sized so the whole fuzz run stays near half a minute on 2 cores (the four
trace kinds add ~40 s, the inspect log made once by inspect_ai included)."""
SEED = int(os.environ.get("SESSIONPROOF_FUZZ_SEED", "0"))


def _cases(kind: str) -> int:
    override = os.environ.get("SESSIONPROOF_FUZZ_CASES")
    return int(override) if override else CASES[kind]


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_no_input_ends_in_a_traceback_or_a_hang(kind: str, fuzz_pool: WorkerPool) -> None:
    if kind == "inspect":
        pytest.importorskip("inspect_ai")
        inspect_log()  # made here once, not inside a worker's time limit
    n = _cases(kind)
    result = tally(kind, SEED, n, fuzz_pool)
    RECORDED.append(result)
    assert sum(result.counts.values()) == n
    assert result.failed == 0, (
        f"{kind}: {dict(result.counts)}; distinct failures:\n{result.report()}"
    )
