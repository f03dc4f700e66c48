"""`--suite tau2-banking[:RETRIEVAL]`: tau2-bench's banking_knowledge tasks.

Each task becomes a scenario in the `banking_knowledge` domain under one retrieval
configuration (`bm25` by default; see `_spec.RETRIEVALS`); its starting DB is the shipped
db.json with the task's `initialization_data.agent_data` merged in, and the read-only
discoverable tools its reference actions call are the ones whose calls are logged (tau2
v1.0.1). A task this package cannot run as tau2 does is left out at load and said: one whose
reference actions include the user's own tool calls when the engine gives the user side no
tools (`DUAL_CONTROL`), or one that needs a tool not implemented here. With dual control the
customer's reference actions become the scenario's `user.actions`, which a stand-in user
(the oracle's) makes on the customer's own tools.
"""

from __future__ import annotations

import functools
import gzip
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

import orjson
from pydantic import ValidationError

from ....domains import Domain, DomainSpec
from ....errors import InputFileError, UnknownSuiteError, describe_validation
from ....records import Action, Criteria, Outcome, Scenario, Session, UserSpec
from ..._suite import Suite
from .._tau2task import TaskAction, Tau2Task, render_instructions
from ._judge import EVALUATOR, evaluate_banking
from ._registry import DISCOVERABLE
from ._spec import DEFAULT_RETRIEVAL, DOMAIN, BankingSpec, check_retrieval
from ._tools import BankingTools
from ._user_tools import BankingUserTools

SUITE = "tau2-banking"


@dataclass(frozen=True)
class LoadedTasks:
    """The scenarios of the runnable tasks, and why each other task was left out."""

    scenarios: tuple[Scenario, ...]
    left_out: Mapping[str, str]


def _agent_data(raw: Mapping[str, Any]) -> dict[str, Any] | None:
    state = raw.get("initial_state") or {}
    init = state.get("initialization_data") if isinstance(state, dict) else None
    # Only agent_data counts: tau2 ignores any other key of initialization_data.
    data = init.get("agent_data") if isinstance(init, dict) else None
    return data if isinstance(data, dict) else None


DUAL_CONTROL = "actions" in UserSpec.model_fields
"""Whether this engine gives the user side tools of its own (`UserSpec.actions`)."""


def _why_not(task: Tau2Task) -> str | None:
    crit = task.evaluation_criteria
    actions = crit.actions or [] if crit else []
    user = sorted({a.name for a in actions if a.requestor == "user"})
    if user and not DUAL_CONTROL:
        return "its reference actions include the user's own tool calls: " + ", ".join(user)
    unknown = sorted(
        {a.name for a in actions if a.requestor == "assistant"} - set(BankingTools.tool_names())
    ) + sorted(
        {a.name for a in actions if a.requestor == "user"} - set(BankingUserTools.tool_names())
    )
    if unknown:
        return "needs tools not implemented here: " + ", ".join(unknown)
    missing = sorted(
        {
            str(a.arguments.get("agent_tool_name"))
            for a in actions
            if a.name in ("unlock_discoverable_agent_tool", "call_discoverable_agent_tool")
            and a.arguments.get("agent_tool_name") not in DISCOVERABLE
        }
    )
    if missing:
        return "needs discoverable tools not implemented here: " + ", ".join(missing)
    state = task.initial_state
    if state is not None and (state.initialization_actions or state.message_history):
        return "its initial state has initialization actions or a message history"
    return None


def _sides(actions: Sequence[TaskAction]) -> tuple[list[Action], list[Action]]:
    """The agent's reference actions and the customer's, each tagged with the user turn it
    belongs to when the customer acts too: a customer action that follows an agent action
    starts the next turn (a stand-in user acts at the start of its turn, the reference agent
    after it), so the two sides' calls run in tau2's order."""
    agent: list[Action] = []
    user: list[Action] = []
    turn, agent_acted = 0, False
    with_user = any(a.requestor == "user" for a in actions)
    for a in actions:
        if a.requestor == "user" and agent_acted:
            turn, agent_acted = turn + 1, False
        tagged = Action(
            tool=a.name,
            args=dict(a.arguments),
            compare_args=a.compare_args,
            turn=turn if with_user else None,
        )
        if a.requestor == "user":
            user.append(tagged)
        else:
            agent.append(tagged)
            agent_acted = True
    return agent, user


def scenarios_from(raw: Any, retrieval: str, where: str) -> LoadedTasks:
    """Scenarios of a tau2 banking task list (`raw`, parsed JSON) under `retrieval`."""
    if not isinstance(raw, list):
        raise InputFileError(f"{where}: expected a list of tasks")
    out: list[Scenario] = []
    left_out: dict[str, str] = {}
    for i, item in enumerate(raw):
        try:
            task = Tau2Task.model_validate(item)
        except ValidationError as exc:
            raise InputFileError(f"{where}: task #{i}: {describe_validation(exc)}") from None
        why = _why_not(task)
        if why:
            left_out[task.id] = why
            continue
        crit = task.evaluation_criteria
        basis = list(crit.reward_basis) if crit else []
        gold, own = _sides(crit.actions or [] if crit else [])
        user: dict[str, Any] = {"actions": own} if own else {}
        out.append(
            Scenario(
                id=task.id,
                domain=DOMAIN,
                description=task.description.purpose if task.description else None,
                tags=["tau2", DOMAIN, f"retrieval:{retrieval}"]
                + [f"basis:{b.lower()}" for b in basis],
                user=UserSpec(
                    instructions=render_instructions(task.user_scenario),
                    persona=task.user_scenario.persona,
                    **user,
                ),
                criteria=Criteria(
                    gold_actions=gold, compare_state="DB" in basis, evaluator=EVALUATOR
                ),
                metadata={"tau2_task": item, "retrieval": retrieval},
            )
        )
    return LoadedTasks(tuple(out), left_out)


@functools.cache
def packaged_tasks() -> Any:
    """The shipped tasks.json (97 tasks), parsed."""
    ref = resources.files("sessionproof.suites.tau2.banking") / "data" / "tasks.json.gz"
    try:
        return orjson.loads(gzip.decompress(ref.read_bytes()))
    except (OSError, EOFError, orjson.JSONDecodeError) as exc:
        raise InputFileError(f"banking data/tasks.json.gz: cannot read: {exc}") from None


def spec_for(scenario: Scenario) -> BankingSpec:
    """The domain spec a banking scenario runs in (its retrieval, its task's data)."""
    raw = scenario.metadata.get("tau2_task") or {}
    reads = frozenset(
        str(a["arguments"]["agent_tool_name"])
        for a in (raw.get("evaluation_criteria") or {}).get("actions") or []
        if a.get("name") == "call_discoverable_agent_tool"
        and isinstance(a.get("arguments"), dict)
        and "agent_tool_name" in a["arguments"]
    )
    retrieval = str(scenario.metadata.get("retrieval") or DEFAULT_RETRIEVAL)
    held = raw.get("user_tools")
    user_tools = frozenset(str(t) for t in held) if isinstance(held, list) else None
    return BankingSpec(retrieval, _agent_data(raw), reads, user_tools=user_tools)


class BankingSuite(Suite):
    """The banking tasks: each scenario in its own domain spec, judged as tau2 judges."""

    def __init__(self, name: str, loaded: LoadedTasks) -> None:
        super().__init__(name, list(loaded.scenarios))
        self.left_out = dict(loaded.left_out)
        """Task id → why it is not in the suite."""
        self._specs: dict[str, DomainSpec] = {}

    def domain_for(self, scenario: Scenario) -> DomainSpec:
        """The scenario's spec (built once per scenario)."""
        found = self._specs.get(scenario.id)
        if found is None:
            found = self._specs[scenario.id] = spec_for(scenario)
        return found

    def evaluate(self, scenario: Scenario, session: Session, final_domain: Domain[Any]) -> Outcome:
        """tau2's reward for the session (DB or ACTION, as the task's basis says)."""
        return evaluate_banking(scenario, session, final_domain, self.domain_for(scenario))


def left_out_note(left_out: Mapping[str, str]) -> str:
    """One line saying how many tasks were left out, and the reasons' kinds."""
    kinds: dict[str, int] = {}
    for why in left_out.values():
        head = why.split(":")[0]
        kinds[head] = kinds.get(head, 0) + 1
    parts = "; ".join(f"{n} {k}" for k, n in sorted(kinds.items()))
    return f"tau2-banking: {len(left_out)} of the tasks are left out ({parts})"


def banking_suite(name: str, tasks: Sequence[Any] | None = None) -> BankingSuite:
    """`tau2-banking[:RETRIEVAL]` (RETRIEVAL: bm25, grep, bm25_grep or no_knowledge)."""
    base, _, retrieval = name.partition(":")
    if base != SUITE:
        raise UnknownSuiteError(f"unknown banking suite {name!r}; use {SUITE}[:RETRIEVAL]")
    retrieval = check_retrieval(retrieval or DEFAULT_RETRIEVAL)
    raw = packaged_tasks() if tasks is None else tasks
    return BankingSuite(name, scenarios_from(raw, retrieval, "banking tasks"))
