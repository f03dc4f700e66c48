"""Recipe: a metric of your own, computed from a run's stored sessions.

Until metrics are a registered extension point, a metric of your own is a function over
`Session` records: read them from the store (or take them from `run_suite`'s result) and keep
the project's rules — one value per arm, never pooled, and sessions that were not judged
counted apart, never as failures.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from sessionproof.records import Session, ToolCallEvent


@dataclass
class CallsPerSuccess:
    """Tool calls made per passed session, for one arm."""

    value: float | None
    """Calls over passed sessions; None when no judged session passed (never 0)."""
    judged: int
    not_judged: int


def calls_per_success(sessions: Iterable[Session]) -> dict[str, CallsPerSuccess]:
    """The metric for each arm of the sessions given."""
    by_arm: dict[str, list[Session]] = defaultdict(list)
    for session in sessions:
        by_arm[session.arm].append(session)
    out = {}
    for arm, group in by_arm.items():
        judged = [s for s in group if s.judged]
        passed = [s for s in judged if s.verdict]
        calls = sum(len(s.events_of(ToolCallEvent)) for s in passed)
        value = calls / len(passed) if passed else None
        out[arm] = CallsPerSuccess(value, len(judged), len(group) - len(judged))
    return out
