"""tau-bench task definitions (`{user_id, instruction, actions: [{name, kwargs}], outputs}`)
and the one entry point that reads any supported task shape into a scenario."""

from __future__ import annotations

import hashlib
from typing import Any

import orjson
from pydantic import Field

from ...importers._internal import ForeignRecord
from ...records import Action, Criteria, Scenario, UserSpec
from ._tau2task import Tau2Task, scenario_from_task

RESPOND = "respond"
"""tau-bench's name for "say this to the user" in an action list (not a tool)."""


EVALUATOR = "tau-bench"
"""`Criteria.evaluator` of a tau-bench task's scenario: judged by tau-bench's reward."""


class TauBenchAction(ForeignRecord):
    """One reference action of a tau-bench task."""

    name: str
    kwargs: dict[str, Any] = Field(default_factory=dict)


class TauBenchTask(ForeignRecord):
    """One tau-bench task."""

    user_id: str | None = None
    instruction: str = Field(min_length=1)
    """What the simulated user is told; a scenario's user needs some (so never empty)."""
    actions: list[TauBenchAction] = Field(default_factory=list)
    outputs: list[str] = Field(default_factory=list)


def scenario_from_taubench(
    task: TauBenchTask, raw: dict[str, Any], task_id: str, domain: str
) -> Scenario:
    """The scenario for a validated tau-bench task (`raw` kept in metadata)."""
    return Scenario(
        id=task_id,
        domain=domain,
        tags=["taubench", domain],
        user=UserSpec(instructions=task.instruction),
        criteria=Criteria(
            gold_actions=[
                Action(tool=a.name, args=dict(a.kwargs)) for a in task.actions if a.name != RESPOND
            ],
            communicate=list(task.outputs),
            evaluator=EVALUATOR,
        ),
        metadata={"taubench_task": raw},
    )


def _content_id(raw: dict[str, Any]) -> str:
    return hashlib.blake2b(
        orjson.dumps(raw, option=orjson.OPT_SORT_KEYS), digest_size=6
    ).hexdigest()


def scenario_from_any_task(raw: object, domain: str) -> Scenario:
    """A scenario from a tau2 task, a tau-bench task or a sessionproof scenario object.

    Raises pydantic's ValidationError for a malformed task of a recognised shape, and
    ValueError for an object of no recognised shape.
    """
    if not isinstance(raw, dict):
        raise ValueError(f"a task must be an object, got {type(raw).__name__}")
    if "user_scenario" in raw or "evaluation_criteria" in raw:
        return scenario_from_task(Tau2Task.model_validate(raw), raw, domain)
    if "instruction" in raw:
        task_id = str(raw.get("id") or raw.get("task_id") or _content_id(raw))
        # A tau-bench task is judged with tau-bench's semantics: its variant of the domain.
        variant = f"taubench-{domain}" if domain in ("retail", "airline") else domain
        return scenario_from_taubench(TauBenchTask.model_validate(raw), raw, task_id, variant)
    if "user" in raw and "id" in raw:
        scenario = Scenario.model_validate({"domain": domain, **raw})
        return scenario
    raise ValueError(
        "not a tau2 task, a tau-bench task or a scenario (no user_scenario, instruction or user)"
    )
