"""tau2-bench task definitions: validation and conversion to scenarios.

The task record is read with its own schema (fields we do not use are ignored: tau2 task
files carry tickets, annotations and issue notes) and turned into a `Scenario` whose
`metadata["tau2_task"]` keeps the task exactly as given, so this package's evaluator applies
its reward basis. What generic scoring needs is typed: `Criteria.evaluator` names the tau2
evaluator and each gold action carries its `compare_args`.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator

from ...importers._internal import ForeignRecord
from ...records import Action, Criteria, Scenario, UserSpec

RewardBasis = Literal["DB", "ENV_ASSERTION", "NL_ASSERTION", "ACTION", "COMMUNICATE"]
"""The components a tau2 task's reward can be the product of."""


EVALUATOR = "tau2"
"""`Criteria.evaluator` of a tau2 task's scenario: judged by the task's own reward basis."""

_DEFAULT_BASIS: list[RewardBasis] = ["DB", "COMMUNICATE"]
"""tau2's reward basis when a task names none (the original tau-bench's two checks)."""


class StructuredInstructions(ForeignRecord):
    """A tau2 user scenario's structured instructions."""

    domain: str | None = None
    reason_for_call: str
    known_info: str | None = None
    unknown_info: str | None = None
    task_instructions: str


class UserScenario(ForeignRecord):
    """What tau2's simulated user is told."""

    persona: str | None = None
    instructions: StructuredInstructions | str


class TaskAction(ForeignRecord):
    """One reference tool call of a task."""

    action_id: str | None = None
    requestor: Literal["assistant", "user"] = "assistant"
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    compare_args: list[str] | None = None


class EnvAssertion(ForeignRecord):
    """A check run on the final environment: a toolkit function and the bool it must return."""

    env_type: Literal["assistant", "user"] = "assistant"
    func_name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    assert_value: bool = True
    message: str | None = None


class EvaluationCriteria(ForeignRecord):
    """How a tau2 task is graded."""

    actions: list[TaskAction] | None = None
    env_assertions: list[EnvAssertion] | None = None
    communicate_info: list[str] | None = None
    nl_assertions: list[str] | None = None
    reward_basis: list[RewardBasis] = Field(default_factory=lambda: _DEFAULT_BASIS.copy())


class InitialState(ForeignRecord):
    """A task's starting point other than the plain DB (unsupported when non-empty)."""

    initialization_data: dict[str, Any] | None = None
    initialization_actions: list[dict[str, Any]] | None = None
    message_history: list[dict[str, Any]] | None = None


class Description(ForeignRecord):
    """A task's description for humans."""

    purpose: str | None = None


class Tau2Task(ForeignRecord):
    """One tau2-bench task."""

    id: str
    description: Description | None = None
    user_scenario: UserScenario
    initial_state: InitialState | None = None
    evaluation_criteria: EvaluationCriteria | None = None

    @field_validator("id", mode="before")
    @classmethod
    def _id_text(cls, value: object) -> object:
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value

    def unsupported(self) -> str | None:
        """Why this task cannot be replayed here, or None."""
        state = self.initial_state
        if state is None:
            return None
        if state.initialization_data or state.initialization_actions or state.message_history:
            return (
                "initial_state (initialization data, actions or message history) is not supported"
            )
        return None


def render_instructions(scenario: UserScenario) -> str:
    """The simulated user's brief, from a tau2 user scenario."""
    ins = scenario.instructions
    if isinstance(ins, str):
        return ins
    parts = [f"Reason for call:\n{ins.reason_for_call}"]
    if ins.known_info:
        parts.append(f"Known info:\n{ins.known_info}")
    if ins.unknown_info:
        parts.append(f"Unknown info:\n{ins.unknown_info}")
    parts.append(f"Task instructions:\n{ins.task_instructions}")
    return "\n\n".join(parts)


def scenario_from_task(task: Tau2Task, raw: dict[str, Any], domain: str) -> Scenario:
    """The scenario for a validated tau2 task (`raw` is the task as given, kept in metadata)."""
    crit = task.evaluation_criteria
    basis = list(crit.reward_basis) if crit else []
    gold = [
        Action(tool=a.name, args=dict(a.arguments), compare_args=a.compare_args)
        for a in (crit.actions or [] if crit else [])
        if a.requestor == "assistant"
    ]
    communicate = list(crit.communicate_info or []) if crit and "COMMUNICATE" in basis else []
    return Scenario(
        id=task.id,
        domain=domain,
        description=task.description.purpose if task.description else None,
        tags=["tau2", domain, *(f"basis:{b.lower()}" for b in basis)],
        user=UserSpec(
            instructions=render_instructions(task.user_scenario),
            persona=task.user_scenario.persona,
        ),
        criteria=Criteria(
            gold_actions=gold,
            communicate=communicate,
            compare_state="DB" in basis,
            evaluator=EVALUATOR,
        ),
        metadata={"tau2_task": raw},
    )
