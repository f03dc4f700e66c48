"""A domain per BFCL multi-turn entry: BFCL's own class instances behind a tool source.

The tools are the function documents of the entry's involved classes (read from bfcl-eval),
each served by the method of that name on a fresh `BfclWorld` (the instances loaded from the
entry's `initial_config` by BFCL's `_load_scenario`). A method's return value reaches the
agent as BFCL renders it; a method that raises is a classified failed call. In miss_func the
held-back functions are left out of the listing until their turn (BFCL adds their documents
at that turn); as in BFCL, only the listing hides them.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict

from ...domains import Domain, DomainSpec, SchemaTool, SchemaTools, ToolContext
from ...records import ToolSpec
from ._mt_data import MultiTurnQuestion, function_docs
from ._mt_exec import BfclWorld, render_result
from ._schema import parameters_schema

BFCL_MULTI_TURN_POLICY = (
    "You are an assistant with the functions listed as tools. At each user turn, call the "
    "functions the request needs, one after another, until it is done; then reply. When a "
    "needed value is missing, ask for it; when no function can do what is asked, say so "
    "instead of calling one."
)
"""The system message of every BFCL multi-turn domain."""


class BfclMultiTurnState(BaseModel):
    """What the engine hashes of a BFCL multi-turn world: its entry (the state lives in the
    BFCL instances, judged by re-running the session's calls as BFCL does)."""

    model_config = ConfigDict(extra="forbid")

    question_id: str


class _TurnTools(SchemaTools):
    """SchemaTools whose listing hides each held-back function until its turn."""

    def __init__(self, tools: list[SchemaTool], held: dict[str, int]) -> None:
        super().__init__(tools, validate=False, fast=True)
        self.held = held
        """Function name → the turn from which it is listed."""

    async def list_tools(self, ctx: ToolContext) -> list[ToolSpec]:
        """The tools listed at the context's turn."""
        return [s for s in self.specs() if self.held.get(s.name, 0) <= ctx.turn]


def _serve(world: BfclWorld, name: str) -> Callable[..., str]:
    def serve(**arguments: Any) -> str:
        # BFCL's methods keep the lists they are given (a tweet's `mentions`) and change them
        # later; a copy keeps the recorded call's arguments as the agent sent them.
        return render_result(world.call(name, (), copy.deepcopy(arguments)))

    return serve


def tool_specs(question: MultiTurnQuestion) -> list[ToolSpec]:
    """The tools of an entry: its classes' function documents, in BFCL's order, once each."""
    seen: dict[str, ToolSpec] = {}
    for class_name in question.involved_classes:
        for doc in function_docs(class_name):
            seen.setdefault(
                doc["name"],
                ToolSpec(
                    name=doc["name"],
                    description=str(doc.get("description") or ""),
                    parameters=parameters_schema(doc),
                ),
            )
    return list(seen.values())


class BfclMultiTurnSpec(DomainSpec):
    """Fresh worlds for one BFCL multi-turn entry."""

    def __init__(self, question: MultiTurnQuestion) -> None:
        self.name = f"bfcl:{question.id}"
        self.question = question
        self.specs = tool_specs(question)
        self.held = {
            name: turn for turn, names in question.missed_function.items() for name in names
        }

    def world(self) -> BfclWorld:
        """The entry's instances in their initial state."""
        q = self.question
        long_context = "long_context" in q.category or "composite" in q.category
        return BfclWorld(q.involved_classes, q.initial_config, long_context=long_context)

    def create(self) -> Domain[BfclMultiTurnState]:
        """A new world for a session."""
        world = self.world()
        tools = _TurnTools([SchemaTool(s, _serve(world, s.name)) for s in self.specs], self.held)
        db = BfclMultiTurnState(question_id=self.question.id)
        return Domain(self.name, db, tools, BFCL_MULTI_TURN_POLICY, transfer_tools=frozenset())

    def tools(self) -> list[ToolSpec]:
        """Every tool of the entry (held-back ones included)."""
        return list(self.specs)
