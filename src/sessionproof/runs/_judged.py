"""A live run's NL judge (`run --judge`) and its cost per arm: the two things a run adds to
its sessions beyond the agent's own calls."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence

from ..errors import ConfigError
from ..records import Session
from ..scoring._internal import (
    CostSummary,
    PriceTable,
    TraceCache,
    cost_summary,
    shipped_prices,
)
from ..suites import Suite
from ..suites._internal import AgentJudge, make_judge
from ._config import RunConfig, parse_executor


@contextlib.asynccontextmanager
async def judging(config: RunConfig, loaded: Suite) -> AsyncIterator[None]:
    """With `config.judge`, the suite judges natural-language assertions by that model (its
    calls recorded in each session as the judge's) until the block ends; else nothing."""
    if config.judge is None:
        yield
        return
    if parse_executor(config.executor)[0] != "local" or config.processes() > 1:
        raise ConfigError("--judge runs with the local executor in one process only")
    judge = make_judge(config.judge)
    loaded.nl_judge = judge
    try:
        yield
    finally:
        loaded.nl_judge = None
        if isinstance(judge, AgentJudge):  # made here from a spec: ours to close
            with contextlib.suppress(Exception):  # a client its worker threads never opened
                await judge.agent.aclose()


def costs_by_arm(
    sessions: Sequence[Session],
    arms: Sequence[str],
    prices: PriceTable | None,
    traces: TraceCache | None = None,
) -> dict[str, CostSummary]:
    """Each arm's cost (never the arms pooled), priced by `prices` or the shipped table;
    each session's calls summed once through `traces` when given (a run's, as they ended)."""
    table = prices if prices is not None else shipped_prices()
    return {a: cost_summary([s for s in sessions if s.arm == a], table, traces) for a in arms}
