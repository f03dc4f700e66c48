"""A tiny counter world for engine tests, independent of the built-in domains."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from sessionproof.domains import Domain, DomainSpec, Toolkit, register_domain, tool
from sessionproof.errors import ToolError


class CounterDB(BaseModel):
    model_config = ConfigDict(extra="forbid")

    counters: dict[str, int] = {"a": 0, "b": 0}


class CounterTools(Toolkit[CounterDB]):
    @tool()
    def read(self, name: str) -> int:
        """Read a counter.

        Args:
            name: counter name
        """
        if name not in self.db.counters:
            raise ToolError(f"counter {name} not found", "not_found")
        return self.db.counters[name]

    @tool(write=True)
    def add(self, name: str, by: int) -> int:
        """Add to a counter.

        Args:
            name: counter name
            by: amount
        """
        if name not in self.db.counters:
            raise ToolError(f"counter {name} not found", "not_found")
        self.db.counters[name] += by
        return self.db.counters[name]

    @tool()
    def explode(self) -> str:
        """A tool with a bug in it."""
        raise RuntimeError("boom")

    @tool()
    def huge(self) -> str:
        """Returns five megabytes."""
        return "x" * 5_000_000

    @tool(write=True)
    def transfer_to_human_agents(self, summary: str) -> str:
        """Hand the customer to a human.

        Args:
            summary: what happened
        """
        return "Transfer successful"


class CounterSpec(DomainSpec):
    name = "counter"

    def create(self) -> Domain[Any]:
        db = CounterDB()
        return Domain("counter", db, CounterTools(db), policy="Keep counters right.")


register_domain(CounterSpec())
