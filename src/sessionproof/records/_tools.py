"""A tool as an agent sees it: the record domains produce and agents, faults and the guard read."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


class ToolSpec(BaseModel):
    """A tool as an agent sees it, plus whether it writes."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    description: str
    parameters: dict[str, Any]
    """JSON Schema of the arguments object."""
    write: bool = False
    """True when the tool changes the DB (never blind-retried)."""
    output_schema: dict[str, Any] | None = None
    """JSON Schema of the result, when the return type is a pydantic model."""

    def openai(self) -> dict[str, Any]:
        """The OpenAI chat-completions `tools` entry for this tool."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }
