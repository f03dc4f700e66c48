"""The one agent protocol: given the conversation and tool schemas, return the next message."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from ..domains import ToolSpec
from ..records import ErrorClass, Message, ModelCall, Scenario

STOP_TOKEN = "###STOP###"
"""Said in a reply without tool calls, it ends the session (`agent_stop`); a simulated user
says it when the conversation is over."""


class AgentRequest(BaseModel):
    """Everything an agent may use to decide its next message."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    messages: list[Message]
    """The conversation so far, system message (the domain policy) first."""
    tools: list[ToolSpec]
    """The tools the agent may call, as it sees them now (drift may have changed them)."""
    turn: int = 0
    step: int = 0
    seed: int | None = None
    scenario: Scenario | None = None
    """Only reference agents (oracle, scripted) read this; a real model never sees it."""


class OutputIssue(BaseModel):
    """Something wrong with the model's reply itself, classified (the session goes on)."""

    model_config = ConfigDict(extra="forbid")

    error_class: ErrorClass
    message: str


class AgentResponse(BaseModel):
    """The agent's next message and what producing it cost."""

    model_config = ConfigDict(extra="forbid")

    message: Message
    """Role `assistant`: text and/or tool calls (parallel calls in emission order)."""
    model_calls: list[ModelCall] = Field(default_factory=list)
    issues: list[OutputIssue] = Field(default_factory=list)
    """Classified problems with the reply (empty, truncated, unparsable arguments...)."""


@runtime_checkable
class Agent(Protocol):
    """Anything that answers an `AgentRequest`.

    Raise `sessionproof.errors.InfraError` when the provider cannot be reached after retries:
    the session then ends as `infra_error`, not as an agent failure.
    """

    name: str
    """Model spec string, with no secret."""

    async def respond(self, request: AgentRequest) -> AgentResponse:
        """Return the next assistant message."""
        ...

    async def aclose(self) -> None:
        """Release resources (HTTP clients, a local server)."""
        ...


REFERENCE_SPECS = ("oracle", "python:")
"""Spec prefixes of agents that are not language models (they cannot play a simulated user)."""


def plays_users(agent: Agent) -> bool:
    """True when `agent` is a model that can also play the simulated user (the default user
    model is the agent's own); reference agents (oracle, python:) cannot."""
    return not agent.name.startswith(REFERENCE_SPECS)
