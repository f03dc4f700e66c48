"""The wild suite's breakdowns: task accuracy by position, type and intent; session accuracy
by instruction transitions; the optimal-path rate of parallel and mixed tasks."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ...records import Scenario, Session
from ...scoring._internal import Breakdowns, rate_cell, rate_table
from .._readings import split_id
from ._generate import TASKS_PER_SESSION, wild_meta
from ._judge import TASK_CRITERION, batched, task_turns, turn_views
from ._tasks import Intent, TaskType

NO_INTENT = "none"
"""The intent label of a task that says everything it needs (every first task, among others)."""

WILD_DEFINITIONS: dict[str, str] = {
    "task_accuracy": "share of tasks (user turns) judged passed, over the judged sessions "
    "(infra errors excluded), each judged on the session's own history (in the gold-prefix "
    "reading: one task per session, on the gold history of the tasks before it, whose gold "
    "reads count as made; a clarify task is not checked there for its question, as its "
    "session ends before the value is given): its gold writes made "
    "and no other, its gold reads made in it or before, no call in a chat task, a question "
    "before a value the user withholds until asked, its facts stated.",
    "by_position": "task accuracy by the task's position in its session (1..4).",
    "by_type": "task accuracy by task type: single-tool (one call), parallel (independent "
    "calls in one batch), sequential (calls that need earlier results), mixed (sequential "
    "steps with a batch among them), clarify (the request cannot be served yet: ask), chat "
    "(no call is right).",
    "by_intent": "task accuracy by implicit-intent kind: coreference (a pronoun for an "
    "earlier order), partial-information (only the piece an earlier request lacked), "
    "long-range-dependency (a value the tools returned tasks ago), beyond-two-turns "
    "(something said more than two turns back); none: the task says all it needs.",
    "by_transitions": "session accuracy by the number of instruction transitions (tasks "
    "whose goal differs from the task before); sessions run from their first task only "
    "(a gold-prefix session plays one task).",
    "optimal_path": "share of parallel and mixed tasks whose every group of independent gold "
    "calls the agent made in one assistant message (batched), success or not.",
}
"""The breakdowns' definitions, shipped with every report of the suite."""


def wild_breakdowns(sessions: Sequence[Session], scenarios: Mapping[str, Scenario]) -> Breakdowns:
    """The breakdowns of one arm's sessions of the wild suite (rules: `WILD_DEFINITIONS`)."""
    position: list[tuple[str, bool]] = []
    types: list[tuple[str, bool]] = []
    intents: list[tuple[str, bool]] = []
    transitions: list[tuple[str, bool]] = []
    optimal: list[tuple[str, bool]] = []
    for session in sessions:
        base_id, start = split_id(session.scenario_id)
        scenario = scenarios.get(base_id)
        meta = None if scenario is None else wild_meta(scenario)
        if scenario is None or meta is None or not session.judged or session.outcome is None:
            continue
        if start is None:
            transitions.append((str(meta.transitions), session.success))
        views = turn_views(session)
        last_turn = max(views) if views else 0
        # From a gold prefix the session played (and was judged on) one task.
        judged = [t for t in meta.tasks if start is None or t.position == start + 1]
        for label in judged:
            result = session.outcome.criterion(f"{TASK_CRITERION}{label.position}")
            passed = result is not None and result.passed is True
            position.append((str(label.position), passed))
            types.append((label.type.value, passed))
            intents.append((label.intent or NO_INTENT, passed))
            if label.type in (TaskType.parallel, TaskType.mixed):
                turns = task_turns(label.position, len(meta.tasks), last_turn)
                made = [b for t in turns if t in views for b in views[t].batches]
                groups = [[scenario.criteria.gold_actions[i] for i in g] for g in label.batches]
                optimal.append((label.type.value, batched(groups, made)))
    everything = [p for _, p in position]
    total = rate_cell("all", everything)
    opt_table = rate_table(
        "optimal_path",
        "optimal-path rate (parallel calls batched)",
        optimal,
        [TaskType.parallel.value, TaskType.mixed.value],
    )
    opt_table.cells.append(rate_cell("all", [p for _, p in optimal]))
    return Breakdowns(
        unit="task",
        units=total.units,
        passed=total.passed,
        rate=total.rate,
        tables=[
            rate_table(
                "by_position",
                "task accuracy by position",
                position,
                [str(i) for i in range(1, TASKS_PER_SESSION + 1)],
            ),
            rate_table("by_type", "task accuracy by type", types, [t.value for t in TaskType]),
            rate_table(
                "by_intent",
                "task accuracy by implicit intent",
                intents,
                [*(i.value for i in Intent), NO_INTENT],
            ),
            rate_table(
                "by_transitions",
                "session accuracy by instruction transitions",
                transitions,
                [str(i) for i in range(TASKS_PER_SESSION)],
            ),
            opt_table,
        ],
        definitions=dict(WILD_DEFINITIONS),
    )
