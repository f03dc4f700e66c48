"""External agents, any framework: the agent calls the session's tools itself, over MCP.

Each session gets its own MCP server on loopback (an `McpHost` mount); the agent is told its
URL with every user turn and calls the tools there. The harness keeps the session loop: a
call the agent makes over MCP becomes this adapter's next decision (an assistant message
with that one tool call), the engine runs it through the session's tool source — the arm's
faults, drift and guard, the step and error limits, the trace — and the result it records
goes back to the agent as the MCP answer. When the agent answers the turn, its text is the
decision after. So an external agent's session reads exactly like a native one.

How user turns reach the agent is the transport's job (`_turns.py`): POSTed to a URL
(`http-agent:`) or written to a process per session (`mcp-agent:`).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import InfraError
from ..records import ErrorClass, Message, ToolCall, ToolResult, ToolSpec
from ._protocol import AgentFailure, AgentRequest, AgentResponse

if TYPE_CHECKING:
    from ..domains.sources.mcp_host import McpHost


class TurnTransport(Protocol):
    """Carries one session's user turns to the agent and its replies back."""

    async def send(self, turn: dict[str, Any]) -> str:
        """Deliver one user turn; return the agent's reply text. Raises `AgentFailure`
        (the agent's fault) or `InfraError` (it cannot be reached)."""
        ...

    async def aclose(self) -> None:
        """Release the session's resources (a process)."""
        ...


TransportFactory = Callable[[str, str], TurnTransport]
"""(session id, MCP URL) → that session's transport."""


@dataclass
class _Call:
    call: ToolCall


@dataclass
class _Reply:
    text: str


@dataclass
class _Failed:
    error: BaseException


_Event = _Call | _Reply | _Failed


@dataclass
class _Session:
    """What the adapter holds for one running session."""

    session_id: str
    ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    events: asyncio.Queue[_Event] = field(default_factory=asyncio.Queue)
    pending: dict[str, asyncio.Future[Message]] = field(default_factory=dict)
    tools: list[ToolSpec] = field(default_factory=list)
    url: str = ""
    transport: TurnTransport | None = None
    turn: asyncio.Task[None] | None = None

    # -- the session's MCP server answers from these (`ServedTools`) ------------------------

    async def list_tools(self) -> list[ToolSpec]:
        return list(self.tools)

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        call = ToolCall(id=f"mcp-{next(self.ids)}", name=name, arguments=arguments)
        answer: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        self.pending[call.id] = answer
        await self.events.put(_Call(call))
        message = await answer
        # The result as the engine recorded it; the tool message carries no error class, so
        # the agent reads failures from the text (`Error: ...`), as a native agent does.
        return ToolResult(call_id=call.id, name=name, output=message.content or "")


class ExternalAgent:
    """An agent outside this process that calls the session's tools over MCP."""

    plays_users = False
    """Not known to be a language model: it never plays the simulated user."""

    def __init__(
        self,
        name: str,
        transport_for: TransportFactory,
        *,
        on_close: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self.name = name
        self._transport_for = transport_for
        self._on_close = on_close
        self._sessions: dict[str, _Session] = {}
        self._host: McpHost | None = None

    async def _open(self, session_id: str) -> _Session:
        from ..domains.sources.mcp_host import McpHost

        if self._host is None:
            self._host = McpHost()
        state = _Session(session_id)
        state.url = await self._host.mount(state)
        state.transport = self._transport_for(session_id, state.url)
        self._sessions[session_id] = state
        return state

    async def respond(self, request: AgentRequest) -> AgentResponse:
        """The agent's next decision: a tool call it made over MCP, or its reply."""
        session_id = request.session_id or "session"
        state = self._sessions.get(session_id) or await self._open(session_id)
        state.tools = list(request.tools)
        last = request.messages[-1] if request.messages else None
        if last is not None and last.role == "tool":
            self._deliver(state, request.messages)
        elif last is not None and last.role == "user" and (state.turn is None or state.turn.done()):
            state.turn = asyncio.create_task(self._turn(state, request, last.content or ""))
        event = await state.events.get()
        if isinstance(event, _Call):
            return AgentResponse(message=Message.assistant(None, [event.call]))
        if isinstance(event, _Reply):
            return AgentResponse(message=Message.assistant(event.text))
        raise event.error

    @staticmethod
    def _deliver(state: _Session, messages: list[Message]) -> None:
        """Hand the engine's results (the trailing tool messages) to the waiting MCP calls."""
        for message in reversed(messages):
            if message.role != "tool":
                break
            answer = state.pending.pop(message.tool_call_id or "", None)
            if answer is not None and not answer.done():
                answer.set_result(message)

    async def _turn(self, state: _Session, request: AgentRequest, text: str) -> None:
        assert state.transport is not None
        policy = request.messages[0].content if request.messages[0].role == "system" else ""
        turn = {
            "session_id": state.session_id,
            "turn": request.turn,
            "message": text,
            "mcp_url": state.url,
            "policy": policy or "",
        }
        try:
            reply = await state.transport.send(turn)
        except asyncio.CancelledError:
            raise
        except (AgentFailure, InfraError) as exc:
            await state.events.put(_Failed(exc))
        except Exception as exc:  # a transport's own bug: still this session's failure only
            failure = AgentFailure(ErrorClass.unknown, f"{type(exc).__name__}: {exc}")
            await state.events.put(_Failed(failure))
        else:
            await state.events.put(_Reply(reply))

    async def end_session(self, session_id: str) -> None:
        """Stop the session's turn, fail its open MCP calls, unmount its server, close its
        transport (a process is stopped)."""
        state = self._sessions.pop(session_id, None)
        if state is None:
            return
        if state.turn is not None and not state.turn.done():
            state.turn.cancel()
            with contextlib.suppress(BaseException):
                await state.turn
        for answer in state.pending.values():
            if not answer.done():
                answer.set_exception(RuntimeError("the session has ended"))
        state.pending.clear()
        if self._host is not None:
            await self._host.unmount(state.url)
        if state.transport is not None:
            await state.transport.aclose()

    async def aclose(self) -> None:
        """End every open session and stop the MCP host."""
        for session_id in list(self._sessions):
            await self.end_session(session_id)
        if self._host is not None:
            host, self._host = self._host, None
            await host.aclose()
        if self._on_close is not None:
            await self._on_close()
