"""A domain per BFCL question: exactly its functions as tools, none of which does anything.

BFCL single-call questions judge the call, not its effect, so every tool answers with the
same acknowledgement. The tools come from JSON documents rather than typed methods, so the
toolkit is built at run time: one small `Toolkit` subclass per question whose class-level
`specs()` / `spec()` answer from the question's schemas.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict

from ...domains import Domain, DomainSpec, Toolkit, ToolSpec
from ...errors import ConfigError, UnknownToolError
from ...records import Scenario
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


class BfclToolkit(Toolkit[BfclState]):
    """Base of the per-question toolkits: tools from JSON Schemas, each a no-op."""

    _specs: ClassVar[dict[str, ToolSpec]] = {}
    _originals: ClassVar[dict[str, str]] = {}

    @classmethod
    def specs(cls) -> list[ToolSpec]:
        """The question's functions as tools, in the question's order."""
        return list(cls._specs.values())

    @classmethod
    def spec(cls, name: str) -> ToolSpec:
        """One tool's spec; raises `UnknownToolError`."""
        found = cls._specs.get(name)
        if found is None:
            raise UnknownToolError(name, list(cls._specs))
        return found

    def invoke(self, name: str, args: dict[str, Any]) -> Any:
        """Acknowledge the call without doing anything; raises `UnknownToolError`."""
        if name not in self._specs:
            raise UnknownToolError(name, list(self._specs))
        return {
            "status": "ok",
            "function": self._originals[name],
            "result": "call received; this benchmark judges the call itself, not its effect",
        }


class BfclDomainSpec(DomainSpec):
    """Fresh no-op domains for one BFCL question."""

    def __init__(self, question_id: str, functions: list[dict[str, Any]], names: dict[str, str]):
        """`names` maps each tool name the agent sees to the BFCL function name."""
        self.name = f"bfcl:{question_id}"
        self.question_id = question_id
        by_original = {f["name"]: f for f in functions}
        specs = {
            safe: ToolSpec(
                name=safe,
                description=str(by_original[original].get("description") or "") + PYTHON_HINT,
                parameters=parameters_schema(by_original[original]),
            )
            for safe, original in names.items()
        }
        self.toolkit_class: type[BfclToolkit] = type(
            f"BfclToolkit_{question_id}",
            (BfclToolkit,),
            {"_specs": specs, "_originals": dict(names), "__doc__": f"Tools of {question_id}."},
        )

    def create(self) -> Domain[BfclState]:
        """A new (stateless) domain for the question."""
        db = BfclState(question_id=self.question_id)
        return Domain(
            self.name, db, self.toolkit_class(db), BFCL_POLICY, transfer_tools=frozenset()
        )

    def tools(self) -> list[ToolSpec]:
        """The question's tools, without building a domain."""
        return self.toolkit_class.specs()


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
