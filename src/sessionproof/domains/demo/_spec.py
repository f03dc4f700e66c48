"""How to make fresh demo worlds: one deep copy of the shipped DB per session."""

from __future__ import annotations

from ...records import ToolSpec
from .._domain import Domain, DomainSpec
from ._data_model import DemoDB
from ._load import DOMAIN_NAME, initial_db, load_policy
from ._tools import DemoTools

TRANSFER_TOOLS = frozenset({"transfer_to_human_agents"})
"""Tools whose successful call ends a demo session as a transfer."""


class DemoSpec(DomainSpec):
    """The built-in orders / help-desk domain."""

    name = DOMAIN_NAME

    def create(self) -> Domain[DemoDB]:
        """A new demo world in its initial state, independent of every other instance."""
        db = initial_db().model_copy(deep=True)
        return Domain(
            name=self.name,
            db=db,
            toolkit=DemoTools(db),
            policy=load_policy(),
            transfer_tools=TRANSFER_TOOLS,
        )

    def tools(self) -> list[ToolSpec]:
        """The demo tools, without copying a DB."""
        return DemoTools.specs()


def spec() -> DemoSpec:
    """The demo domain's spec (the registry's factory for the name "demo")."""
    return DemoSpec()
