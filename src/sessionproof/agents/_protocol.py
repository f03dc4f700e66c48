"""The one agent protocol: given the conversation and tool schemas, return the next message."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from ..records import ErrorClass, Message, Scenario, ToolSpec
from ..records._internal import ModelCall

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
    session_id: str = ""
    """The session this request belongs to (an agent serving several sessions at once,
    like the external ones, keeps its per-session state under it)."""
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

    An agent that is a language model, and so can also play a scenario's simulated user,
    says so with a class or instance attribute `plays_users = True` (the provider agents do).
    It is optional and not part of the protocol's required members: an agent without it is
    not asked to play the user. `plays_users(agent)` is the one place that reads it.

    An agent that never edits a request and never reads its `scenario` may say so with
    `request_readonly = True` (the provider adapters do): the engine then hands it the
    conversation without copying it, and no scenario. One whose every reply is a fresh
    `AgentResponse` of validated records it keeps no reference to may say
    `replies_fresh = True` (the provider adapters do): the engine then checks its tool-call
    arguments but does not rebuild the reply.
    """

    name: str
    """Model spec string, with no secret."""

    async def respond(self, request: AgentRequest) -> AgentResponse:
        """Return the next assistant message."""
        ...

    async def aclose(self) -> None:
        """Release resources (HTTP clients, a local server)."""
        ...


class AgentFailure(Exception):
    """Raised by an agent to end its session as its own failure, classified: an external
    agent that answered garbage (`malformed_output`) or whose process died (`unavailable`).

    The session ends as `too_many_errors` with an `agent_error` event of `error_class`;
    `InfraError` is for what is not the agent's fault (it ends as `infra_error`).
    """

    def __init__(self, error_class: ErrorClass, message: str) -> None:
        super().__init__(message)
        self.error_class = error_class


async def end_session(agent: Agent, session_id: str) -> None:
    """Tell `agent` that session `session_id` is over, when it wants to know: an agent with
    a per-session resource (a tool server, a process) has `async end_session(session_id)`.
    Optional, like `plays_users`; this is the one place that calls it."""
    hook = getattr(agent, "end_session", None)
    if callable(hook):
        await hook(session_id)


def plays_users(agent: Agent) -> bool:
    """True when `agent` is a language model that can also play the simulated user (the
    default user model is the agent's own): when it has `plays_users = True`.

    Decided by the agent, never by its name: reference agents (oracle, scripted, `python:`)
    say False, and an agent object without the attribute is taken not to be a model, so a
    user's own agent is never asked to play the user unless it says it can. Only a real
    `True` counts (a truthy string or a method does not).
    """
    return getattr(agent, "plays_users", False) is True
