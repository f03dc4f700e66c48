"""Scenarios of the wild suite, generated from its data file (`sessions.yaml`).

Each line of the data file is a session: a demo customer and four tasks spelled as a
template name and its words. The generator plays every task's gold calls on a fresh demo
world, in order, so each task's facts (statuses, refund amounts, ticket numbers) and the
final-state assertions come from the real tools, and a blueprint that asks for something the
world forbids (a return past its window) fails here, at load. Deterministic: the same file
always gives the same scenarios.
"""

from __future__ import annotations

import functools
from importlib import resources
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ...domains.demo._internal import (
    CustomerMatch,
    Order,
    OrderSummary,
    Product,
    Refund,
    Ticket,
    spec,
)
from ...errors import InputFileError, ToolError
from ...records import Action, Criteria, Scenario, UserSpec
from .._yaml import load_yaml
from ._tasks import TEMPLATES, Context, TaskPlan, TaskType

TASKS_PER_SESSION = 4


class Blueprint(BaseModel):
    """One session of the data file."""

    model_config = ConfigDict(extra="forbid")

    customer: str
    tasks: list[str] = Field(min_length=TASKS_PER_SESSION, max_length=TASKS_PER_SESSION)


class TaskLabel(BaseModel):
    """What the wild suite knows of one task (kept in `Scenario.metadata["wild"]`)."""

    model_config = ConfigDict(extra="forbid")

    position: int
    """1..4 within the session; the task is user turn `position - 1`."""
    type: TaskType
    intent: str | None = None
    goal: str
    transition: bool = False
    """The user wants something else than in the task before (an instruction transition)."""
    facts: list[str] = Field(default_factory=list)
    """Values from the task's tool results the agent must tell the user."""
    batches: list[list[int]] = Field(default_factory=list)
    """Groups of gold actions (indices into `criteria.gold_actions`) that can go in one
    step: the optimal path makes each group one batch."""


class WildMeta(BaseModel):
    """The wild suite's part of a scenario's metadata."""

    model_config = ConfigDict(extra="forbid")

    tasks: list[TaskLabel]
    transitions: int


def _facts(result: Any) -> list[str]:
    # What a user must hear back from each tool, as it appears in the result.
    if isinstance(result, CustomerMatch):
        return [result.name]
    if isinstance(result, Order):
        # A cancellation's refund is the order's total.
        return [result.status, *([str(result.total)] if result.status == "cancelled" else [])]
    if isinstance(result, Product):
        return [result.name]
    if isinstance(result, Refund):
        return [str(result.amount)]
    if isinstance(result, Ticket):
        return [result.id]
    if isinstance(result, list):
        return [s.order_id for s in result if isinstance(s, OrderSummary)]
    return []


def _plan(ctx: Context, words: str, where: str) -> TaskPlan:
    name, *args = words.split()
    template = TEMPLATES.get(name)
    if template is None:
        raise InputFileError(f"{where}: unknown task template {name!r}")
    try:
        return template(ctx, *args)
    except TypeError:
        raise InputFileError(f"{where}: wrong words for {name!r}: {words!r}") from None


def build_scenario(index: int, blueprint: Blueprint) -> Scenario:
    """The scenario of one blueprint; raises `InputFileError` naming what is wrong."""
    where = f"wild suite: session {index + 1}"
    domain = spec().create()
    customer = domain.db.customers.get(blueprint.customer)
    if customer is None:
        raise InputFileError(f"{where}: no customer {blueprint.customer!r}")
    ctx = Context(db=domain.db, customer=customer)
    actions: list[Action] = []
    labels: list[TaskLabel] = []
    touched: list[str] = []
    for turn, words in enumerate(blueprint.tasks):
        plan = _plan(ctx, words, f"{where}, task {turn + 1}")
        facts: list[str] = []
        batches: list[list[int]] = []
        for step in plan.steps:
            group = []
            for call in step:
                if "order_id" in call.args:  # a session touches its own customer's orders only
                    ctx.order(str(call.args["order_id"]))
                try:
                    result = domain.call(call.tool, dict(call.args))
                except ToolError as exc:
                    raise InputFileError(f"{where}, task {turn + 1}: {call.tool}: {exc}") from None
                facts += _facts(result)
                group.append(len(actions))
                actions.append(
                    Action(tool=call.tool, args=call.args, turn=turn, ask_first=call.ask_first)
                )
                if call.tool in ("cancel_order", "return_items", "create_ticket"):
                    touched += [str(call.args["order_id"])]
            if len(group) > 1:
                batches.append(group)
        previous = ctx.tasks[-1] if ctx.tasks else None
        if (
            previous is not None
            and previous.clarify
            and not any(c.ask_first for s in plan.steps for c in s)
        ):
            raise InputFileError(f"{where}, task {turn + 1}: a clarify task must be answered")
        labels.append(
            TaskLabel(
                position=turn + 1,
                type=plan.type,
                intent=None if plan.intent is None else plan.intent.value,
                goal=plan.goal,
                transition=previous is not None and previous.goal != plan.goal,
                facts=list(dict.fromkeys(facts)),
                batches=batches,
            )
        )
        ctx.tasks.append(plan)
    final = domain.db.model_dump(mode="json")
    state = {f"orders.{o}.status": final["orders"][o]["status"] for o in dict.fromkeys(touched)}
    meta = WildMeta(tasks=labels, transitions=sum(t.transition for t in labels))
    return Scenario(
        id=f"wild-{index + 1:02d}",
        domain="demo",
        description=f"{customer.name}: " + " | ".join(blueprint.tasks),
        tags=["wild", f"transitions:{meta.transitions}"],
        user=UserSpec(turns=[t.text for t in ctx.tasks]),
        criteria=Criteria(
            gold_actions=actions,
            communicate=list(dict.fromkeys(f for t in labels for f in t.facts)),
            state=state,
            per_turn=True,
        ),
        metadata={"wild": meta.model_dump(mode="json")},
    )


def parse_blueprints(data: bytes, source: str) -> list[Blueprint]:
    """The sessions of a wild data file; raises `InputFileError` on a bad one."""
    raw = load_yaml(data, source).data
    if not isinstance(raw, dict) or not isinstance(raw.get("sessions"), list):
        raise InputFileError(f"{source}: expected a mapping with a `sessions` list")
    out = []
    for i, item in enumerate(raw["sessions"]):
        try:
            out.append(Blueprint.model_validate(item))
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join(str(p) for p in err["loc"]) or "(session)"
            raise InputFileError(f"{source}: session {i + 1}: {field}: {err['msg']}") from None
    return out


@functools.cache
def _shipped() -> tuple[Scenario, ...]:
    data = resources.files(__package__).joinpath("sessions.yaml").read_bytes()
    blueprints = parse_blueprints(data, "wild/sessions.yaml")
    return tuple(build_scenario(i, b) for i, b in enumerate(blueprints))


def wild_scenarios() -> list[Scenario]:
    """The shipped wild scenarios (fresh copies: callers may change them)."""
    return [s.model_copy(deep=True) for s in _shipped()]


def wild_meta(scenario: Scenario) -> WildMeta | None:
    """The wild labels of a scenario of this suite, or None for any other scenario."""
    raw = scenario.metadata.get("wild")
    if raw is None:
        return None
    return WildMeta.model_validate(raw)
