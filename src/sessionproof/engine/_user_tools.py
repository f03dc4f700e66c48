"""The user's own tools (dual control): where they come from, how their calls are run and
recorded, and how faults and drift on them are told from the agent's.

A scenario gives the user side tools in one of two ways: `UserSpec.tools` names a domain the
user holds on its own (its own state and schemas), or the scenario's domain has a user side
of its own (`user_tool_source()`: tau2 telecom's phone, whose state the agent's tools also
reach). The arm's hooks may wrap that source too (`wrap_user_tools`: `user_faults=`,
`user_drift=`); the events those wrappers emit are marked `side="user"`.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from typing import Any

from ..domains import Domain, ToolContext, ToolSource, get_domain
from ..domains._internal import result_from_exception
from ..records import Action, ErrorClass, EventKind, Message, Scenario, ToolCall, ToolResult
from ..records._internal import DriftApplied, EventPayload, FaultInjected, ImplicitFault, ModelCall
from ..users import User, UserReply
from ._recorder import Recorder

_SIDED = (FaultInjected, DriftApplied, ImplicitFault)
"""Payloads that say whose tools they met."""

MAX_USER_TOOL_ROUNDS = 12
"""Replies of tool calls a user may make in one turn before it must speak: past it, the
turn goes on as if the user had said nothing (a user model stuck calling its tools)."""

NO_USER_REPLY = "(no reply)"
"""What the agent is shown when the user said nothing."""


async def user_reply(
    user: User,
    conversation: list[Message],
    turn: int,
    tools: UserTools | None,
    rec: Recorder,
    model_calls: Callable[[list[ModelCall]], None],
) -> UserReply:
    """The user's reply for `turn`, after the calls it makes on its own tools first (run,
    recorded and handed back to it); `model_calls` records what playing the user cost."""
    if tools is not None:
        await tools.offer_listed(user)
    reply = await user.reply(conversation, turn)
    model_calls(reply.model_calls)
    rounds = 0
    while reply.tool_calls and not reply.text and not reply.stop:
        await UserTools.run(tools, user, reply.tool_calls, rec)
        rounds += 1
        if rounds >= MAX_USER_TOOL_ROUNDS:
            return reply.model_copy(update={"tool_calls": [], "text": NO_USER_REPLY})
        if tools is not None:
            await tools.offer_listed(user)
        reply = await user.reply(conversation, turn)
        model_calls(reply.model_calls)
    if reply.tool_calls:  # calls made along with words or a stop: before them
        await UserTools.run(tools, user, reply.tool_calls, rec)
    return reply


class UserTools:
    """The user's tool source in one session, wrapped by the arm's user-side hooks."""

    def __init__(
        self,
        source: ToolSource,
        rec: Recorder,
        context: Callable[[], ToolContext],
        raw: ToolSource | None = None,
    ) -> None:
        self.source = source
        """The source the user calls: its own, wrapped by the arm's user-side hooks."""
        self.raw = source if raw is None else raw
        """The user's own source, unwrapped (a gold prefix replays on it)."""
        self.rec = rec
        self._context = context

    @classmethod
    def of(
        cls,
        scenario: Scenario,
        hooks: object,
        domain: Domain[Any],
        rec: Recorder,
        context: Callable[[], ToolContext],
    ) -> UserTools | None:
        """The user's tools in a session of `scenario` under the arm's `hooks`, or None when
        the user holds none."""
        own: ToolSource | None = None
        named = scenario.user.tools
        if named is not None:
            own = get_domain(named).create()
        else:
            side = getattr(domain, "user_tool_source", None)
            own = side() if callable(side) else None
        if own is None:
            return None
        wrap = getattr(hooks, "wrap_user_tools", None)
        return cls(wrap(own) if callable(wrap) else own, rec, context, own)

    def _emit(self, kind: EventKind, payload: EventPayload) -> None:
        if isinstance(payload, _SIDED):
            payload = payload.model_copy(update={"side": "user"})
        self.rec.emit(kind, payload)

    def context(self) -> ToolContext:
        """The session's tool context, its events marked as the user side's."""
        return dataclasses.replace(self._context(), emit=self._emit)

    async def offer_listed(self, user: User) -> None:
        """Show a user who takes tools (`ToolUser`) what it can call now."""
        give = getattr(user, "give_tools", None)
        if callable(give):
            give(await self.source.list_tools(self.context()))

    async def call(self, call: ToolCall) -> ToolResult:
        """Run one of the user's calls; a source that raises is still one failed result."""
        start = time.perf_counter()
        try:
            return await self.source.call_tool(call, self.context())
        except Exception as exc:
            return result_from_exception(call, exc, start)

    @staticmethod
    async def run(
        tools: UserTools | None, user: User, calls: Sequence[ToolCall], rec: Recorder
    ) -> list[ToolResult]:
        """Run and record the user's calls in order, then hand the results to the user."""
        results: list[ToolResult] = []
        for call in calls:
            rec.emit(EventKind.user_tool_call, call)
            if tools is None:
                text = "the user holds no tools of its own"
                result = ToolResult(
                    call_id=call.id,
                    name=call.name,
                    output=f"Error: {text}",
                    error_class=ErrorClass.validation_error,
                    error=text,
                )
            else:
                result = await tools.call(call)
            rec.emit(EventKind.user_tool_result, result)
            results.append(result)
        observe = getattr(user, "observe", None)
        if callable(observe):
            observe(list(calls), results)
        return results

    async def replay(self, actions: Sequence[Action], turn: int) -> None:
        """Make the user's scripted calls of `turn` unrecorded (a gold prefix's history)."""
        ctx = dataclasses.replace(self._context(), emit=_discard)
        for i, action in enumerate(a for a in actions if (a.turn or 0) == turn):
            call = ToolCall(
                id=f"gold-user-{turn}-{i}", name=action.tool, arguments=dict(action.args)
            )
            await self.raw.call_tool(call, ctx)

    async def aclose(self) -> None:
        """Release what the user's source holds."""
        await self.source.aclose()


def _discard(kind: EventKind, payload: EventPayload) -> None:
    return None
