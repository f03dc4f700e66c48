"""What a store's runs of a suite say about its tasks: those no run ever passed, and those
whose verdicts flip most from trial to trial.

Only runs of the suite count (the manifest names it); a store holding none is an error that
names what it holds instead. Verdicts are read per run and arm, never pooled across them: a
flip is a change of verdict between consecutive trials of one task in one run and arm, and a
task's flip rate is its flips over its pairs of consecutive judged trials. A session without
a verdict (not judged, or a criterion left unevaluated) is left out, never read as a failure.
"""

from __future__ import annotations

from collections import defaultdict
from itertools import pairwise
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from ..errors import StoreError
from ..store import Store
from ._audit_checks import Flag

MOST_FLIPPING = 10
"""How many of the most-flipping tasks are listed."""


class StoreFindings(BaseModel):
    """The store part of an audit."""

    model_config = ConfigDict(extra="forbid")

    store: str
    runs: list[str]
    """The runs of the suite that were read."""
    judged_sessions: int
    never_passed: list[str]
    """Tasks with judged sessions, none of them a pass."""
    flip_rates: dict[str, float]
    """The most-flipping tasks (at most `MOST_FLIPPING`, flip rate above 0), highest first."""


def _same_suite(recorded: str, suite: str) -> bool:
    """The same suite, whatever split (`tau2-retail:test` is `tau2-retail`'s)."""
    return recorded.split(":", 1)[0] == suite.split(":", 1)[0]


def store_findings(
    store: Path, suite: str, scenario_ids: list[str]
) -> tuple[StoreFindings, list[Flag]]:
    """The findings of `store`'s runs of suite `suite` and a flag per task found."""
    if not Path(store).exists():
        raise StoreError(f"no store at {store}")
    with Store.open_for_reading(store) as db:
        listing = db.list_runs()
        ours = [r for r in listing if _same_suite(r.suite, suite)]
        if not ours:
            held = sorted({r.suite for r in listing}) or ["no run at all"]
            raise StoreError(
                f"store {store} has no run of suite {suite!r} (it holds: {', '.join(held)})"
            )
        rows = {r.run_id: db.session_rows(r.run_id) for r in ours}
    known = set(scenario_ids)
    passes: dict[str, int] = defaultdict(int)
    judged: dict[str, int] = defaultdict(int)
    series: dict[tuple[str, str, str], list[tuple[int, bool]]] = defaultdict(list)
    for run_id, run_rows in rows.items():
        for row in run_rows:
            if row.scenario_id not in known or row.success is None:
                continue
            if row.not_judged is not None or (row.unevaluated and row.evaluated_success):
                continue
            judged[row.scenario_id] += 1
            passes[row.scenario_id] += bool(row.success)
            series[(run_id, row.arm, row.scenario_id)].append((row.trial, bool(row.success)))
    flips: dict[str, int] = defaultdict(int)
    pairs: dict[str, int] = defaultdict(int)
    for (_, _, sid), verdicts in series.items():
        ordered = [v for _, v in sorted(verdicts)]
        for a, b in pairwise(ordered):
            pairs[sid] += 1
            flips[sid] += a != b
    never = sorted((s for s in judged if passes[s] == 0), key=scenario_ids.index)
    rates = {s: flips[s] / pairs[s] for s in pairs if flips[s]}
    top = dict(
        sorted(rates.items(), key=lambda kv: (-kv[1], scenario_ids.index(kv[0])))[:MOST_FLIPPING]
    )
    flags = [
        Flag(
            scenario=s,
            check="never_passed",
            severity="warning",
            reason=f"no run passed it ({judged[s]} judged sessions in {len(ours)} runs)",
        )
        for s in never
    ] + [
        Flag(
            scenario=s,
            check="flips",
            severity="warning",
            reason=f"its verdict flips in {flips[s]} of {pairs[s]} consecutive trials",
        )
        for s in top
    ]
    findings = StoreFindings(
        store=str(store),
        runs=[r.run_id for r in ours],
        judged_sessions=sum(judged.values()),
        never_passed=never,
        flip_rates=top,
    )
    return findings, flags
