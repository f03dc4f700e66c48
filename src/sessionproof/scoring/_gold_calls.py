"""Gold actions judged as required calls, and expected calls, against the calls a session
made: where the state cannot be replayed (a server, fixtures) or where a gold call leaves it
unchanged (a read), a gold action is met only by a successful call of its tool with its
arguments. The evidence names each unmet call and its first mismatching argument."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..records import (
    Action,
    CriterionResult,
    ExpectedCall,
    Session,
    ToolCall,
    ToolCallEvent,
    ToolResult,
)
from ..records._internal import Mismatch
from ._evidence import MISSING, describe_all
from ._matching import maximum_matching

GOLD_CALLS = "gold_calls"
"""The criterion name of gold actions judged as required calls."""


def _compared_keys(call_args: dict[str, Any], action: Action) -> list[str]:
    if action.compare_args is not None:
        return list(action.compare_args)
    return sorted(set(action.args) | set(call_args))


def _first_difference(call: ToolCall, action: Action) -> tuple[str, Any, Any] | None:
    """(argument, gold value, call value or MISSING) of the first argument that differs."""
    args = call.arguments or {}
    for key in _compared_keys(args, action):
        want, got = action.args.get(key, MISSING), args.get(key, MISSING)
        if want != got:
            return key, want, got
    return None


def _difference_count(call: ToolCall, action: Action) -> int:
    args = call.arguments or {}
    return sum(
        action.args.get(k, MISSING) != args.get(k, MISSING) for k in _compared_keys(args, action)
    )


def gold_call_matches(call: ToolCall, action: Action) -> bool:
    """True when `call` names the action's tool with equal arguments: those in
    `compare_args` when it is set, else every argument of either side."""
    return call.name == action.tool and _first_difference(call, action) is None


def _made(session: Session, turn: int | None) -> list[tuple[ToolCall, ToolResult | None]]:
    """The session's calls in order (only those of user turn `turn` when given), each with
    its result (None when none came back)."""
    results = {r.call_id: r for r in session.tool_results()}
    return [
        (e.payload, results.get(e.payload.id))
        for e in session.events_of(ToolCallEvent)
        if turn is None or e.turn == turn
    ]


def calls_made(made: list[tuple[ToolCall, ToolResult | None]]) -> str:
    """The calls as a short list for evidence: `get_order, cancel_order (failed)`, or none."""
    if not made:
        return "none"
    return ", ".join(c.name + ("" if r is not None and r.ok else " (failed)") for c, r in made)


def _label(index: int, action: Action) -> str:
    return f"{action.tool}[{index}]"


def _why_unmet(
    index: int, action: Action, made: list[tuple[ToolCall, ToolResult | None]], out_of_order: bool
) -> Mismatch:
    where = _label(index, action)
    if out_of_order:
        after = "made after the gold calls before it"
        return Mismatch(where=where, expected=after, actual="made earlier")
    same = [(c, r) for c, r in made if c.name == action.tool]
    if not same:
        return Mismatch(where=where, expected=dict(action.args), missing=True)
    for call, result in same:
        if _first_difference(call, action) is None:
            error = "no result" if result is None else (result.error or result.output)
            return Mismatch(where=where, expected="a successful call", actual=f"failed: {error}")
    # The closest call of the tool (fewest differing arguments) and its first difference.
    closest = min((c for c, _ in same), key=lambda c: _difference_count(c, action))
    difference = _first_difference(closest, action)
    assert difference is not None  # no call of the tool matched
    key, want, got = difference
    return Mismatch(
        where=f"{where}.{key}",
        expected=None if want is MISSING else want,
        actual=None if got is MISSING else got,
        missing=got is MISSING,
    )


def _assign(actions: Sequence[Action], ok: list[ToolCall], ordered: bool) -> list[int]:
    """For each action, the index of the successful call that meets it, or -1: in order,
    the earliest match after the previous action's; else a maximum matching, so the count
    met never depends on the order of repeated calls."""
    if not ordered:
        candidates = [
            [i for i, call in enumerate(ok) if gold_call_matches(call, action)]
            for action in actions
        ]
        return maximum_matching(candidates, len(ok))
    out = []
    floor = 0
    for action in actions:
        found = next((i for i in range(floor, len(ok)) if gold_call_matches(ok[i], action)), -1)
        out.append(found)
        floor = found + 1 if found != -1 else floor
    return out


def gold_calls_result(
    session: Session,
    actions: Sequence[Action],
    *,
    ordered: bool = False,
    turn: int | None = None,
    indices: Sequence[int] | None = None,
) -> CriterionResult:
    """Each gold action must be met by its own successful call (`ordered`: in the listed
    order); `turn` limits the calls to one user turn's. `indices`: each action's position
    in the scenario's gold actions, for the evidence (default: its position here)."""
    labels = list(indices) if indices is not None else list(range(len(actions)))
    made = _made(session, turn)
    ok = [c for c, r in made if r is not None and r.ok]
    assigned = _assign(actions, ok, ordered)
    taken = set(assigned)
    spare = [c for i, c in enumerate(ok) if i not in taken]
    unmet = [
        # In order, a matching call left over came before an earlier action's: out of order.
        _why_unmet(
            labels[n], action, made, ordered and any(gold_call_matches(c, action) for c in spare)
        )
        for n, (action, found) in enumerate(zip(actions, assigned, strict=True))
        if found == -1
    ]
    met = len(actions) - len(unmet)
    order = " in order" if ordered else ""
    evidence = (
        f"all {len(actions)} gold call(s) made{order} and succeeded"
        if not unmet
        else f"{met}/{len(actions)} gold call(s) met{order}; "
        + describe_all(unmet)
        + f"; calls made: {calls_made(made)}"
    )
    return CriterionResult(name=GOLD_CALLS, passed=not unmet, evidence=evidence, details=unmet)


def call_matches(call: ToolCall, expected: ExpectedCall) -> bool:
    """True when `call` names the expected tool with an acceptable value for each argument."""
    if call.name != expected.tool or call.arguments is None:
        return False
    for name, acceptable in expected.args.items():
        if name not in call.arguments:
            if None not in acceptable:
                return False
        elif call.arguments[name] not in acceptable:
            return False
    return True


def _expected_unmet(
    index: int, expected: ExpectedCall, made: list[tuple[ToolCall, ToolResult | None]]
) -> Mismatch:
    where = f"{expected.tool}[{index}]"
    same = [(c, r) for c, r in made if c.name == expected.tool]
    if not same:
        return Mismatch(where=where, expected=dict(expected.args), missing=True)
    for call, result in same:
        if call_matches(call, expected):
            error = "no result" if result is None else (result.error or result.output)
            return Mismatch(where=where, expected="a successful call", actual=f"failed: {error}")
    args = same[0][0].arguments or {}
    for key, acceptable in expected.args.items():
        if key not in args and None not in acceptable:
            return Mismatch(where=f"{where}.{key}", expected=acceptable, missing=True)
        if key in args and args[key] not in acceptable:
            return Mismatch(where=f"{where}.{key}", expected=acceptable, actual=args[key])
    return Mismatch(where=where, expected=dict(expected.args), actual=args)


def expected_calls_result(
    session: Session, expected: Sequence[ExpectedCall], extra: Sequence[ToolCall] = ()
) -> CriterionResult:
    """Each expected call must be matched by some successful call (any order); `extra` are
    calls made on the agent's behalf that count as made (a gold prefix's)."""
    # Only calls that succeeded count: a call that met a fault did not do its work.
    made = _made(session, None)
    calls = [*extra, *(c for c, r in made if r is not None and r.ok)]
    unmet = [
        _expected_unmet(i, e, made)
        for i, e in enumerate(expected)
        if not any(call_matches(c, e) for c in calls)
    ]
    missing = [e.tool for e in expected if not any(call_matches(c, e) for c in calls)]
    return CriterionResult(
        name="expected_calls",
        passed=not unmet,
        evidence=f"no matching successful call for: {', '.join(missing)} "
        f"({describe_all(unmet)}; calls made: {calls_made(made)})"
        if unmet
        else f"all {len(expected)} expected call(s) made",
        details=unmet,
    )
