"""A domain: a typed DB, the toolkit bound to it, a policy, a canonical state hash."""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from typing import Any, Generic

import orjson
from pydantic import BaseModel

from ..records import ToolSpec
from ._toolkit import DBT, Toolkit


def state_hash(db: BaseModel) -> str:
    """Canonical hash of a DB: sorted-key JSON, blake2b. Stable across processes and runs."""
    data = orjson.dumps(db.model_dump(mode="json"), option=orjson.OPT_SORT_KEYS)
    return hashlib.blake2b(data, digest_size=16).hexdigest()


class Domain(Generic[DBT]):
    """One live world: a DB and the toolkit acting on it. Create one per session."""

    def __init__(
        self,
        name: str,
        db: DBT,
        toolkit: Toolkit[DBT],
        policy: str,
        transfer_tools: frozenset[str] = frozenset({"transfer_to_human_agents"}),
    ) -> None:
        self.name = name
        self.db = db
        self.toolkit = toolkit
        self.policy = policy
        self.transfer_tools = transfer_tools
        """Tools whose successful call ends the session as a transfer."""

    def tools(self) -> list[ToolSpec]:
        """The tools an agent sees."""
        return type(self.toolkit).specs()

    def call(self, name: str, args: dict[str, Any]) -> Any:
        """Run one tool; raises `ToolError` subclasses for expected failures."""
        return self.toolkit.invoke(name, args)

    def state_hash(self) -> str:
        """Canonical hash of the current DB state."""
        return state_hash(self.db)


class DomainSpec(ABC):
    """How to make fresh instances of a domain."""

    name: str

    @abstractmethod
    def create(self) -> Domain[Any]:
        """A new domain in its initial state."""

    def tools(self) -> list[ToolSpec]:
        """The tools of this domain (without building a DB when avoidable)."""
        return self.create().tools()
