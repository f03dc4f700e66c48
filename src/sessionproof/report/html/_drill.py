"""Why a session failed, as the drill-down shows it: each criterion's verdict with its evidence
and structured mismatches, and the scenario's gold calls beside the calls the session made.

Everything here becomes JSON the page writes with `textContent`: no markup is built.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

from ...records import Action, Scenario, Session
from ...records._internal import Mismatch

MAX_VALUE = 400
"""A mismatch's expected or actual value is cut to this many characters in the page."""


def _text(value: Any) -> str | None:
    if value is None:
        return None
    text = value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= MAX_VALUE else text[:MAX_VALUE] + f" … [{len(text)} chars]"


def _mismatch(m: Mismatch) -> list[Any]:
    return [m.where, _text(m.expected), _text(m.actual), m.missing]


def criteria_records(session: Session) -> list[list[Any]]:
    """Each criterion as [name, passed (None: not evaluated), evidence, mismatches], each
    mismatch as [where, expected, actual, missing] (lists, not objects: a 1,000-session page
    carries some 4,000 of them)."""
    if session.outcome is None:
        return []
    return [
        [c.name, c.passed, c.evidence, [_mismatch(m) for m in c.details]]
        for c in session.outcome.criteria
    ]


def _args(args: Any) -> str:
    try:
        # orjson: a 600-session report makes a few thousand of these.
        return orjson.dumps(args, default=str, option=orjson.OPT_SORT_KEYS).decode()
    except TypeError:  # a lone surrogate (or a value orjson refuses): the standard encoder
        return json.dumps(args, default=str, ensure_ascii=False, sort_keys=True)


def _gold(action: Action) -> str:
    return f"{action.tool}({_args(action.args)})"


def _first_difference(action: Action, args: dict[str, Any] | None) -> str:
    """The first compared argument where the call differs from the gold action, or ""."""
    if args is None:
        return "arguments could not be parsed"
    for name in action.compare_args if action.compare_args is not None else action.args:
        want = action.args.get(name)
        if name not in args:
            return f"{name}: expected {_text(want)}, missing"
        if args[name] != want:
            return f"{name}: expected {_text(want)}, got {_text(args[name])}"
    return ""


def calls_record(session: Session, scenario: Scenario | None) -> list[list[str]] | None:
    """The scenario's gold calls beside the session's calls, as [expected, actual, difference]
    rows, for a session that did not pass; None for a pass (a 600-session report would spend
    its time on calls that all matched), or when the scenario names no gold call or is not
    known.

    Each gold call sits beside the session's first not yet placed call to the same tool with
    the same compared arguments, else its first not yet placed call to that tool, with the
    first argument that differs (or "not made", or "failed" for a call that met an error);
    the session's other calls follow with no expected call."""
    if scenario is None or not scenario.criteria.gold_actions or session.verdict:
        return None
    failed = {r.call_id for r in session.tool_results() if not r.ok}
    calls = session.tool_calls()
    text = [
        f"{c.name}({c.raw_arguments if c.arguments is None else _args(c.arguments)})" for c in calls
    ]
    placed: set[int] = set()
    rows: list[list[str]] = []
    for action in scenario.criteria.gold_actions:
        free = [i for i, c in enumerate(calls) if i not in placed and c.name == action.tool]
        same = [i for i in free if not _first_difference(action, calls[i].arguments)]
        hit = next(iter(same or free), None)
        if hit is None:
            rows.append([_gold(action), "", "not made"])
            continue
        placed.add(hit)
        note = _first_difference(action, calls[hit].arguments)
        if calls[hit].id in failed:
            note = "; ".join(p for p in (note, "the call failed") if p)
        rows.append([_gold(action), text[hit], note])
    rows += [["", t, "not in the gold calls"] for i, t in enumerate(text) if i not in placed]
    return rows
