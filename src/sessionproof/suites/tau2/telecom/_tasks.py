"""tau2 telecom tasks → scenarios, with every function and tool a task names checked at load.

A telecom task differs from retail's and airline's in three ways, all kept:
- its set-up (`initial_state.initialization_actions`) runs functions on both sides (break
  the phone, suspend a line), so each task starts from its own world (`TelecomSpec`);
- its reference actions are the agent's and the user's: the agent's become the gold
  actions, the user's the user's own calls (`UserSpec.actions`, made by the stand-in user of
  a reference agent), each given the turn the conversation reaches it in;
- its reward basis is mostly ENV_ASSERTION, checks of the phone after the session.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from ....errors import InputFileError, describe_validation
from ....records import Action, Criteria, Scenario, UserSpec
from .._tau2task import EVALUATOR, TaskAction, Tau2Task, render_instructions
from ._files import TelecomFiles
from ._phone_setup import PhoneEnv
from ._tools import TelecomTools

DOMAIN = "telecom"
_SIDES: dict[str, type[Any]] = {"assistant": TelecomTools, "user": PhoneEnv}


def task_problem(task: Tau2Task) -> str | None:
    """What in a task cannot run here: a function or tool no side has, or a start other
    than set-up steps."""
    state = task.initial_state
    if state is not None and (state.initialization_data or state.message_history):
        return "initial_state.initialization_data / message_history are not supported"
    for i, step in enumerate((state.initialization_actions or []) if state else []):
        side = step.get("env_type")
        name = step.get("func_name")
        kind = _SIDES.get(side) if isinstance(side, str) else None
        if kind is None:
            return f"initialization_actions.{i}: env_type {side!r} is not assistant or user"
        if not isinstance(name, str) or not callable(getattr(kind, name, None)):
            return f"initialization_actions.{i}: no {side} function {name!r}"
        if not isinstance(step.get("arguments") or {}, dict):
            return f"initialization_actions.{i}: arguments are not an object"
    crit = task.evaluation_criteria
    for i, action in enumerate((crit.actions or []) if crit else []):
        tools = _SIDES[action.requestor].tool_names()
        if action.name not in tools:
            return f"evaluation_criteria.actions.{i}: no {action.requestor} tool {action.name!r}"
    for i, check in enumerate((crit.env_assertions or []) if crit else []):
        if not callable(getattr(_SIDES[check.env_type], check.func_name, None)):
            return (
                f"evaluation_criteria.env_assertions.{i}: no {check.env_type} function "
                f"{check.func_name!r}"
            )
    return None


def _turns(actions: list[TaskAction]) -> list[int]:
    """The turn each reference action falls in: the user acts at the start of its turn,
    before it speaks; the agent after the user's message. A user action after an agent's
    waits for the next turn (the agent has to hand back first)."""
    turn, agent_acted, out = 0, False, []
    for action in actions:
        if action.requestor == "user":
            if agent_acted:
                turn, agent_acted = turn + 1, False
        else:
            agent_acted = True
        out.append(turn)
    return out


def scenario_of(task: Tau2Task, raw: dict[str, Any], files: TelecomFiles) -> Scenario:
    """The scenario of a checked telecom task."""
    crit = task.evaluation_criteria
    basis = list(crit.reward_basis) if crit else []
    actions = list(crit.actions or []) if crit else []
    turns = _turns(actions)
    gold = [
        Action(tool=a.name, args=dict(a.arguments), compare_args=a.compare_args, turn=t)
        for a, t in zip(actions, turns, strict=True)
        if a.requestor == "assistant"
    ]
    own = [
        Action(tool=a.name, args=dict(a.arguments), turn=t)
        for a, t in zip(actions, turns, strict=True)
        if a.requestor == "user"
    ]
    metadata: dict[str, Any] = {"tau2_task": raw}
    if files.folder is not None:
        metadata["tau2_data"] = str(files.folder)
    return Scenario(
        id=task.id,
        domain=DOMAIN,
        description=task.description.purpose if task.description else None,
        tags=["tau2", DOMAIN, *(f"basis:{b.lower()}" for b in basis)],
        user=UserSpec(
            instructions=render_instructions(task.user_scenario),
            persona=task.user_scenario.persona,
            actions=own,
        ),
        criteria=Criteria(
            gold_actions=gold,
            communicate=list(crit.communicate_info or [])
            if crit and "COMMUNICATE" in basis
            else [],
            compare_state="DB" in basis,
            evaluator=EVALUATOR,
        ),
        metadata=metadata,
    )


def load_scenarios(files: TelecomFiles) -> list[Scenario]:
    """Every task of the source's task file as a scenario; a malformed task is an
    `InputFileError` naming it."""
    name = files.task_file
    raw = files.json(name)
    if isinstance(raw, dict) and isinstance(raw.get("tasks"), list):
        raw = raw["tasks"]
    if not isinstance(raw, list):
        raise InputFileError(f"{files.where}{name}: expected a list of tasks")
    scenarios = []
    for i, item in enumerate(raw):
        tid = item.get("id") if isinstance(item, dict) else None
        label = f"{files.where}{name}: task #{i}" + (f" ({tid})" if tid is not None else "")
        try:
            task = Tau2Task.model_validate(item)
        except ValidationError as exc:
            raise InputFileError(f"{label}: {describe_validation(exc)}") from None
        problem = task_problem(task)
        if problem:
            raise InputFileError(f"{label}: {problem}")
        scenarios.append(scenario_of(task, item, files))
    return scenarios


def load_splits(files: TelecomFiles) -> dict[str, list[str]]:
    """The split name → task ids of `split_tasks.json`."""
    splits = files.json("split_tasks.json")
    if not isinstance(splits, dict) or not all(isinstance(v, list) for v in splits.values()):
        raise InputFileError(f"{files.where}split_tasks.json: expected an object of id lists")
    return {str(k): [str(i) for i in v] for k, v in splits.items()}
