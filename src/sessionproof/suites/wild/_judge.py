"""Per-task verdicts of a wild session, each judged on the session's own history.

Task `i` is user turn `i - 1`; the last task also owns any turn after it (a perturbation may
add one). A task passes when, within its turns:
- every gold write of the task was made, successfully, with the gold arguments, and no other
  write was made;
- every gold read was made successfully with the gold arguments in this task or before it
  (a read whose answer is already in the context need not be repeated);
- a chat task made no call but its gold ones (it has none unless a perturbation moved one in);
- when the next task's gold calls need a value the user withholds until asked
  (`Action.ask_first`), the agent asked (a reply with a question mark) and did not make
  such a call yet (a guess);
- the task's facts appear in the agent's replies from the task on.

The session succeeds when every task passes and the generic criteria hold (final state
equal to the gold replay, state assertions, forbidden calls).

A session started at a task from the gold prefix (`Scenario.start_turn`, the gold-prefix
reading) is judged on that task alone: the prefix's gold calls (run by the engine, not in
the trace) count as successful reads made before it, and the prefix's tool results are in
the agent's context. Its scenario ends at that task, so a withheld value of the task after it
is not asked for there (a guessed write is still an extra write).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ...records import (
    Action,
    AssistantMessageEvent,
    CriterionResult,
    Scenario,
    Session,
    ToolCall,
    ToolCallEvent,
    ToolResultEvent,
)
from ...scoring._internal import normalise_text
from ._generate import TaskLabel, WildMeta
from ._tasks import TaskType

TASK_CRITERION = "task:"
"""Per-task criteria are named `task:1` .. `task:4`."""


@dataclass
class TurnView:
    """One user turn of a session: the calls made (with whether they succeeded), the agent's
    replies, and its assistant messages' call batches."""

    calls: list[tuple[ToolCall, bool]] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    batches: list[list[ToolCall]] = field(default_factory=list)


def turn_views(session: Session) -> dict[int, TurnView]:
    """The session's events grouped by user turn."""
    ok = {e.payload.call_id: e.payload.ok for e in session.events_of(ToolResultEvent)}
    views: dict[int, TurnView] = {}
    for event in session.events:
        view = views.setdefault(event.turn, TurnView())
        if isinstance(event, ToolCallEvent):
            view.calls.append((event.payload, ok.get(event.payload.id, False)))
        elif isinstance(event, AssistantMessageEvent):
            if event.payload.content:
                view.texts.append(event.payload.content)
            if event.payload.tool_calls:
                view.batches.append(list(event.payload.tool_calls))
    return views


def same_call(call: ToolCall, action: Action) -> bool:
    """True when `call` is `action`: same tool, equal arguments."""
    return call.name == action.tool and (call.arguments or {}) == action.args


def task_turns(position: int, tasks: int, last_turn: int) -> list[int]:
    """The user turns task `position` (1-based) owns."""
    first = position - 1
    return list(range(first, max(last_turn, first) + 1)) if position == tasks else [first]


def _check_task(
    label: TaskLabel,
    scenario: Scenario,
    views: dict[int, TurnView],
    writes: frozenset[str],
    tasks: int,
    prefix: list[tuple[ToolCall, bool]],
) -> CriterionResult:
    last_turn = max(views) if views else 0
    turns = task_turns(label.position, tasks, last_turn)
    mine = [c for t in turns for c in views.get(t, TurnView()).calls]
    before = prefix + [c for t in range(turns[0]) for c in views.get(t, TurnView()).calls]
    gold = [a for a in scenario.criteria.gold_actions if (a.turn or 0) in turns]
    problems: list[str] = []
    unmatched = [(c, ok) for c, ok in mine if c.name in writes]
    for action in gold:
        if action.tool in writes:
            hits = [h for h in unmatched if same_call(h[0], action)]
            # A failed attempt followed by a successful one is still the write done.
            hit = next((h for h in hits if h[1]), hits[0] if hits else None)
            if hit is None or not hit[1]:
                problems.append(f"missing write {action.tool}{action.args}")
            if hit is not None:
                unmatched.remove(hit)
        elif not any(ok and same_call(c, action) for c, ok in before + mine):
            problems.append(f"missing read {action.tool}{action.args}")
    # A failed attempt at a gold write, retried or not, is no extra write.
    extra = [c for c, ok in unmatched if ok or not any(same_call(c, a) for a in gold)]
    problems += [f"extra write {c.name}{c.arguments}" for c in extra]
    if label.type is TaskType.chat:
        # Only a perturbation (a withheld value given now) puts gold calls in a chat turn.
        stray = [c for c, _ in mine if not any(same_call(c, a) for a in gold)]
        if stray:
            problems.append(f"{len(stray)} call(s) in a chat task")
    for turn in turns:
        # A value the user withholds until asked, needed at the next turn: ask, don't guess.
        asked_for = [
            a for a in scenario.criteria.gold_actions if a.ask_first and a.turn == turn + 1
        ]
        if not asked_for:
            continue
        view = views.get(turn, TurnView())
        if not any("?" in t for t in view.texts):
            problems.append(
                "did not ask for " + ", ".join(n for a in asked_for for n in a.ask_first)
            )
        tools = {a.tool for a in asked_for}
        guesses = [
            c
            for c, _ in view.calls
            if c.name in tools and not any(same_call(c, a) for a in gold)  # gold: not a guess
        ]
        problems += [f"guessed {c.name} before being told" for c in guesses]
    said = normalise_text(
        "\n".join(t for turn, v in views.items() if turn >= turns[0] for t in v.texts)
    )
    missing = [f for f in label.facts if normalise_text(f) not in said]
    if missing:
        problems.append("did not say " + ", ".join(missing))
    return CriterionResult(
        name=f"{TASK_CRITERION}{label.position}",
        passed=not problems,
        evidence="; ".join(problems) if problems else f"{label.type.value} task done",
    )


def gold_prefix_calls(scenario: Scenario) -> list[tuple[ToolCall, bool]]:
    """The gold calls the engine replayed before a gold-prefix session's first turn, each as
    made successfully (none for a session run from its first turn)."""
    start = scenario.start_turn or 0
    return [
        (ToolCall(id=f"gold-{i}", name=a.tool, arguments=dict(a.args)), True)
        for i, a in enumerate(scenario.criteria.gold_actions)
        if (a.turn or 0) < start
    ]


def judged_labels(scenario: Scenario, meta: WildMeta) -> list[TaskLabel]:
    """The tasks a session of `scenario` is judged on: every one, or from a gold prefix
    (`start_turn`) only the task it starts at."""
    if scenario.start_turn is None:
        return list(meta.tasks)
    return [t for t in meta.tasks if t.position == scenario.start_turn + 1]


def judge_tasks(
    scenario: Scenario, meta: WildMeta, session: Session, writes: frozenset[str]
) -> list[CriterionResult]:
    """One criterion per judged task of `scenario` (rules: the module docstring)."""
    views = turn_views(session)
    prefix = gold_prefix_calls(scenario)
    return [
        _check_task(t, scenario, views, writes, len(meta.tasks), prefix)
        for t in judged_labels(scenario, meta)
    ]


def batched(action_groups: Sequence[Sequence[Action]], view_batches: list[list[ToolCall]]) -> bool:
    """True when each group of gold actions was made within one assistant message."""
    for group in action_groups:
        if not any(
            all(any(same_call(c, a) for c in batch) for a in group) for batch in view_batches
        ):
            return False
    return True
