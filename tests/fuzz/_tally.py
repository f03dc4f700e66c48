"""Counting fuzz outcomes per input kind and printing them as a table with reproducers."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field

from ._pool import DEFAULT_TIMEOUT_S, WorkerPool
from ._run import FAILURES, OUTCOMES, CaseResult


@dataclass
class Tally:
    """Outcome counts of one input kind, and the distinct failures with a first example."""

    kind: str
    counts: Counter[str] = field(default_factory=Counter)
    failures: dict[str, list[CaseResult]] = field(default_factory=dict)
    seconds: float = 0.0
    notes: Counter[str] = field(default_factory=Counter)

    def add(self, result: CaseResult) -> None:
        """Count one result; keep the first few examples of each failure signature."""
        self.counts[result.outcome] += 1
        if result.note:
            self.notes[result.note] += 1
        if result.outcome in FAILURES:
            key = result.signature or result.outcome
            examples = self.failures.setdefault(key, [])
            examples.append(result)

    @property
    def failed(self) -> int:
        """Tracebacks plus hangs."""
        return self.counts["traceback"] + self.counts["hang"]

    def row(self) -> list[str]:
        """kind, then one count per outcome class, then the distinct failures."""
        total = sum(self.counts.values())
        counts = [str(self.counts[o]) for o in OUTCOMES]
        return [self.kind, str(total), *counts, str(len(self.failures))]

    def report(self, examples: int = 1) -> str:
        """Each distinct failure: signature, count, innermost frame, message, reproducer."""
        lines = []
        for signature, results in sorted(self.failures.items(), key=lambda kv: -len(kv[1])):
            smallest = sorted(results, key=lambda r: (r.description.count(";"), r.index))
            lines.append(f"[{self.kind}] {signature}  ×{len(results)}")
            for r in smallest[:examples]:
                if r.where:
                    lines.append(f"    at {r.where}")
                if r.message:
                    lines.append(f"    message: {r.message}")
                lines.append(f"    case {r.index}: {r.description[:400]}")
        return "\n".join(lines)


def tally(
    kind: str, seed: int, cases: int, pool: WorkerPool, timeout: float = DEFAULT_TIMEOUT_S
) -> Tally:
    """Run cases 0..cases-1 of `kind` in `pool` and count their outcomes."""
    result = Tally(kind)
    started = time.perf_counter()
    for case in pool.run(kind, seed, range(cases), timeout):
        result.add(case)
    result.seconds = time.perf_counter() - started
    return result


RECORDED: list[Tally] = []
"""Tallies of this pytest session, printed in its terminal summary (see conftest.py)."""

HEADER = ["kind", "cases", *OUTCOMES, "distinct failures"]
"""Column names of `Tally.row`."""


def table(tallies: list[Tally]) -> str:
    """A plain-text table of outcome counts, one row per input kind."""
    rows = [HEADER, *([*t.row(), f"{t.seconds:.1f}s"] for t in tallies)]
    rows[0] = [*HEADER, "time"]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join(
        "  ".join(
            cell.ljust(w) if i == 0 else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(r, widths, strict=True))
        )
        for r in rows
    )
