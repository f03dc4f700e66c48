"""Why a session failed, as the drill-down shows it: each criterion's verdict with its evidence
and structured mismatches, and the scenario's gold calls beside the calls the session made.

Everything here becomes JSON the page writes with `textContent`: no markup is built.
"""

from __future__ import annotations

import json
from typing import Any

from ...records import Action, Mismatch, Scenario, Session

MAX_VALUE = 400
"""A mismatch's expected or actual value is cut to this many characters in the page."""


def _text(value: Any) -> str | None:
    if value is None:
        return None
    text = value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= MAX_VALUE else text[:MAX_VALUE] + f" … [{len(text)} chars]"


def _mismatch(m: Mismatch) -> list[Any]:
    return [m.where, _text(m.expected), _text(m.actual), m.missing]


def criteria_records(session: Session) -> list[dict[str, Any]]:
    """Each criterion: name, passed (None: not evaluated), evidence, and its mismatches as
    [where, expected, actual, missing] rows."""
    if session.outcome is None:
        return []
    return [
        {
            "name": c.name,
            "passed": c.passed,
            "evidence": c.evidence,
            "details": [_mismatch(m) for m in c.details],
        }
        for c in session.outcome.criteria
    ]


def _args(args: Any) -> str:
    return json.dumps(args, default=str, ensure_ascii=False, sort_keys=True)


def _gold(action: Action) -> str:
    return f"{action.tool}({_args(action.args)})"


def calls_record(session: Session, scenario: Scenario | None) -> list[list[str]] | None:
    """The scenario's gold calls beside the session's calls, as [expected, actual] rows, or
    None when the scenario names no gold call (or is not known).

    Each gold call sits beside the first not yet placed call of the session to the same tool
    (a call that failed says so); the session's other calls follow with no expected call."""
    if scenario is None or not scenario.criteria.gold_actions:
        return None
    failed = {r.call_id for r in session.tool_results() if not r.ok}
    made = [
        (
            c.name,
            f"{c.name}({c.raw_arguments if c.arguments is None else _args(c.arguments)})"
            + (" → failed" if c.id in failed else ""),
        )
        for c in session.tool_calls()
    ]
    placed: set[int] = set()
    rows: list[list[str]] = []
    for action in scenario.criteria.gold_actions:
        hit = next(
            (i for i, (name, _) in enumerate(made) if i not in placed and name == action.tool),
            None,
        )
        if hit is not None:
            placed.add(hit)
        rows.append([_gold(action), "" if hit is None else made[hit][1]])
    rows += [["", text] for i, (_, text) in enumerate(made) if i not in placed]
    return rows
