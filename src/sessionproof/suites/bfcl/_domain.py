"""A domain per BFCL question: exactly its functions as tools, none of which does anything.

BFCL single-call questions judge the call, not its effect, so every tool answers with the
same acknowledgement. The tools come from JSON documents rather than typed methods, so they
are a `SchemaTools`: the question's schemas, each served by one acknowledging callable.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict

from ...domains import Domain, DomainSpec, SchemaTool, SchemaTools
from ...errors import ConfigError
from ...records import Scenario, ToolSpec
from ._schema import PYTHON_HINT, parameters_schema

BFCL_POLICY = (
    "You can call the functions listed as tools. When the user's request can be served by "
    "them, call the ones it needs with arguments taken from the request. When no function "
    "fits, or a required value is missing, say so instead of calling one."
)
"""The system message of every BFCL domain."""


class BfclState(BaseModel):
    """The (empty) world of a BFCL question: nothing a call could change."""

    model_config = ConfigDict(extra="forbid")

    question_id: str


def _acknowledge(function: str) -> Callable[..., dict[str, str]]:
    """The tool serving BFCL function `function`: any arguments, the same answer."""

    def acknowledge(**_: Any) -> dict[str, str]:
        return {
            "status": "ok",
            "function": function,
            "result": "call received; this benchmark judges the call itself, not its effect",
        }

    return acknowledge


class BfclDomainSpec(DomainSpec):
    """Fresh no-op domains for one BFCL question."""

    def __init__(self, question_id: str, functions: list[dict[str, Any]], names: dict[str, str]):
        """`names` maps each tool name the agent sees to the BFCL function name."""
        self.name = f"bfcl:{question_id}"
        self.question_id = question_id
        by_original = {f["name"]: f for f in functions}
        self.specs = [
            ToolSpec(
                name=safe,
                description=str(by_original[original].get("description") or "") + PYTHON_HINT,
                parameters=parameters_schema(by_original[original]),
            )
            for safe, original in names.items()
        ]
        self.names = dict(names)

    def create(self) -> Domain[BfclState]:
        """A new (stateless) domain for the question."""
        # Arguments are not validated (BFCL judges the call as made, and a rejection would
        # change what the agent does next); the acknowledgement is a pure, instant function,
        # so it runs inline.
        tools = SchemaTools(
            [SchemaTool(spec, _acknowledge(self.names[spec.name])) for spec in self.specs],
            validate=False,
            fast=True,
        )
        db = BfclState(question_id=self.question_id)
        return Domain(self.name, db, tools, BFCL_POLICY, transfer_tools=frozenset())

    def tools(self) -> list[ToolSpec]:
        """The question's tools, without building a domain."""
        return list(self.specs)


def bfcl_metadata(scenario: Scenario) -> dict[str, Any]:
    """The BFCL part of a scenario's metadata; raises `ConfigError` when it has none."""
    meta = scenario.metadata.get("bfcl")
    if not isinstance(meta, dict) or not isinstance(meta.get("functions"), list):
        raise ConfigError(f"scenario {scenario.id!r} is not a BFCL question (no metadata.bfcl)")
    return meta


def bfcl_domain(scenario: Scenario) -> DomainSpec:
    """The domain of a BFCL scenario: its functions as tools that only acknowledge calls.

    Raises `ConfigError` for a scenario that did not come from `load_bfcl_suite`.
    """
    meta = bfcl_metadata(scenario)
    names = meta.get("tool_names") or {f["name"]: f["name"] for f in meta["functions"]}
    return BfclDomainSpec(str(meta.get("id", scenario.id)), meta["functions"], names)
