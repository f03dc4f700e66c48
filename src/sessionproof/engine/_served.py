"""A session driven from outside: an agent calls the tools itself (over MCP, `serve`).

There is no user and no agent loop here: the tools of one scenario, wrapped by its arm's
hooks exactly as in a run, answer calls as they come; each call and its result are recorded
as the loop records them (so metrics, patterns and the report read the session as any
other), and when the client is done the session is judged on the final state.

An MCP client has no channel to the user, so the session adds one tool, `reply_to_user`:
its `text` is recorded as an assistant message (what `communicate` criteria read), and its
result is the user's next turn — the scenario's next scripted turn, or a simulated user's
reply — or a note that the user has nothing more to say.
"""

from __future__ import annotations

import itertools
import time
from typing import Any

from ..agents._internal import collect_model_calls
from ..domains import Domain, ToolContext, ToolSource
from ..domains._internal import result_from_exception, source_gone
from ..records import (
    ErrorClass,
    EventKind,
    Message,
    Outcome,
    Scenario,
    Session,
    Termination,
    TerminationReason,
    ToolCall,
    ToolResult,
    ToolSpec,
)
from ..records._internal import ModelCall
from ..users import User
from ._boundary import NoHooks, SessionHooks
from ._judge import Judge, with_termination
from ._recorder import Recorder
from ._user_tools import UserTools, user_reply

REPLY_TOOL = "reply_to_user"
"""The served session's own tool for talking to the user (not a tool of the domain)."""
REPLY_SPEC = ToolSpec(
    name=REPLY_TOOL,
    description=(
        "Send a message to the user you are helping (an answer, a confirmation, a question). "
        "Returns the user's next message, or says the user has nothing more to say."
    ),
    parameters={
        "type": "object",
        "properties": {"text": {"type": "string", "description": "Your message to the user."}},
        "required": ["text"],
    },
)
USER_DONE = "(the user has nothing more to say; end the session when you are done)"
"""The reply tool's result once the user's turns are over."""


class ServedSession:
    """One scenario's tools, served to an outside agent, recorded and judged at the end.

    It is the `ServedTools` an MCP host mounts: `list_tools()` and `call_tool(name, args)`.
    """

    def __init__(
        self,
        *,
        run_id: str,
        session_id: str,
        scenario: Scenario,
        judge: Judge,
        arm: str = "baseline",
        seed: int = 0,
        hooks: SessionHooks | None = None,
        model: str = "external",
        user: User | None = None,
    ) -> None:
        self.run_id = run_id
        self.session_id = session_id
        self.scenario = scenario
        self.judge = judge
        self.arm = arm
        self.seed = seed
        self.model = model
        self.rec = Recorder(run_id, session_id)
        self.domain: Domain[Any] = judge.domain_for(scenario).create()
        self.tools: ToolSource = (hooks or NoHooks()).wrap(self.domain)
        self.started = time.time()
        self._ids = itertools.count(1)
        self.session: Session | None = None
        self.user = user
        self.user_tools = UserTools.of(scenario, hooks, self.domain, self.rec, self._context)
        """The user's own tools (dual control), or None when the user holds none."""
        self.conversation: list[Message] = []
        self._user_done = user is None
        self.opening: str | None = None
        self._domain_replies = False
        """The user's first message, once `open_turn` has asked for it."""

    def _context(self) -> ToolContext:
        return ToolContext(
            run_id=self.run_id,
            session_id=self.session_id,
            scenario_id=self.scenario.id,
            trial=0,
            arm=self.arm,
            turn=self.rec.turn,
            step=self.rec.step,
            seed=self.seed,
            emit=self.rec.emit,
        )

    async def list_tools(self) -> list[ToolSpec]:
        """The tools as the agent sees them now (drift included), and `reply_to_user`."""
        tools = await self.tools.list_tools(self._context())
        self._domain_replies = any(t.name == REPLY_TOOL for t in tools)
        if self._domain_replies:
            return tools  # the domain has its own: it is the domain's to answer
        if self.opening is None:
            return [*tools, REPLY_SPEC]
        said = f"{REPLY_SPEC.description} The user's first message was: {self.opening}"
        return [*tools, REPLY_SPEC.model_copy(update={"description": said})]

    async def open_turn(self) -> str | None:
        """Ask the user for the first message and record it (once); None without a user.
        A client reads it in `reply_to_user`'s description."""
        if self.opening is None and not self.conversation:
            self.opening = await self._next_user_turn()
        return self.opening

    async def _next_user_turn(self) -> str | None:
        if self.user is None or self._user_done:
            return None
        reply = await user_reply(
            self.user,
            list(self.conversation),
            self.rec.turn,
            self.user_tools,
            self.rec,
            self._model_calls,
        )
        if reply.stop or not reply.text:
            self._user_done = True
            return None
        msg = Message.user(reply.text)
        self.conversation.append(msg)
        self.rec.emit(EventKind.user_message, msg)
        return reply.text

    def _model_calls(self, calls: list[ModelCall]) -> None:
        for call in calls:
            self.rec.emit(EventKind.model_call, call)

    async def _reply(self, call: ToolCall) -> ToolResult:
        start = time.perf_counter()
        text = (call.arguments or {}).get("text")
        if not isinstance(text, str) or not text.strip():
            return ToolResult(
                call_id=call.id,
                name=call.name,
                output="Error: `text` must be a non-empty string",
                error="`text` must be a non-empty string",
                error_class=ErrorClass.validation_error,
                latency_s=time.perf_counter() - start,
            )
        msg = Message.assistant(text)
        self.conversation.append(msg)
        self.rec.emit(EventKind.assistant_message, msg)
        self.rec.step += 1
        if self.opening is not None:
            self.rec.turn += 1
        answer = await self._next_user_turn()
        return ToolResult(
            call_id=call.id,
            name=call.name,
            output=answer if answer is not None else USER_DONE,
            latency_s=time.perf_counter() - start,
        )

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        """One call through the arm's wrappers, recorded as a tool call and its result."""
        if self.session is not None:
            raise RuntimeError("the served session has ended")
        call = ToolCall(id=f"call-{next(self._ids)}", name=name, arguments=arguments)
        if name == REPLY_TOOL and not self._domain_replies:
            return await self._reply(call)
        self.rec.emit(EventKind.tool_call, call)
        start = time.perf_counter()
        try:
            result = await self.tools.call_tool(call, self._context())
        except Exception as exc:  # a source breaking its contract: still one failed call
            result = result_from_exception(call, exc, start)
        self.rec.emit(EventKind.tool_result, result)
        self.rec.step += 1
        return result

    async def finish(
        self, reason: TerminationReason = TerminationReason.agent_stop, detail: str = ""
    ) -> Session:
        """End the session (once): close the tools, judge the final state, return it."""
        if self.session is not None:
            return self.session
        gone = source_gone(self.domain)
        if gone is not None:  # the tools failed, not the agent: not judged
            reason, detail = TerminationReason.infra_error, gone
        try:
            await self.tools.aclose()
            if self.user_tools is not None:
                await self.user_tools.aclose()
        finally:
            self.rec.emit(EventKind.end, Termination(termination=reason, detail=detail))
        session = Session(
            run_id=self.run_id,
            session_id=self.session_id,
            scenario_id=self.scenario.id,
            trial=0,
            arm=self.arm,
            model=self.model,
            events=self.rec.events,
            termination=reason,
            termination_detail=detail,
            started_at=self.started,
            ended_at=time.time(),
        )
        if reason is not TerminationReason.infra_error:
            with collect_model_calls() as judged_by:
                judged = self.judge.evaluate(self.scenario, session, self.domain)
            for call in judged_by:  # the NL judge's calls, recorded before its verdict
                self.rec.emit(EventKind.model_call, call)
            outcome: Outcome = with_termination(judged, reason)
            session.outcome = outcome
            self.rec.emit(EventKind.verdict, outcome)
            session.events = self.rec.events
        self.session = session
        return session
