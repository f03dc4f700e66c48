"""The parties of a forked session, wrapped around the engine's own: the user and the agent
replay the recorded turns before the fork, then the lane's agent and the rest of the user
side take over; a probe on the tools notes the domain's state at the fork.

Two lanes run from the same fork: the candidate, and an optional baseline lane — another
agent, or the **recorded agent** (`RECORDED_LANE`): the transcript's own later messages
replayed in order, with its own later user messages, which is the original session run
again through the fork harness.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..agents import Agent, AgentRequest, AgentResponse, OracleAgent, end_session
from ..domains import ToolContext, ToolSource, WrapperToolSource
from ..records import Message, Scenario, ToolSpec
from ..users import User, UserReply
from ._fork_plan import ForkPlan

RECORDED_LANE = "recorded"
"""`--baseline-lane recorded`: the recorded agent replayed from the fork on."""


@dataclass
class ForkProbe:
    """What the probes saw, by session id: the domain's state hash when the lane's agent
    was first asked (the fork), or nothing when the session never got there."""

    states: dict[str, str | None]

    def reached(self, session_id: str) -> bool:
        """True when the session reached its fork."""
        return session_id in self.states


class _ProbedSource(WrapperToolSource):
    """Notes the state the first time the tools are listed at or after the fork's turn
    (the engine lists them before every agent decision)."""

    def __init__(self, inner: ToolSource, turn: int, probe: ForkProbe) -> None:
        super().__init__(inner)
        self.turn = turn
        self.probe = probe

    async def list_tools(self, ctx: ToolContext) -> list[ToolSpec]:
        """The wrapped tools; the state is noted on the first listing at the fork."""
        if ctx.turn >= self.turn and ctx.session_id not in self.probe.states:
            self.probe.states[ctx.session_id] = self.inner.state_hash()
        return await self.inner.list_tools(ctx)


class _StopUser:
    """Ends the session at its next user turn."""

    async def reply(self, conversation: list[Message], turn: int) -> UserReply:
        """A stop."""
        return UserReply(stop=True)


class PrefixUser:
    """The recorded user messages up to turn `last` (inclusive), then `inner`."""

    def __init__(self, fork: ForkPlan, last: int, inner: User, stop_at_end: bool) -> None:
        self.fork = fork
        self.last = min(last, len(fork.turns) - 1)
        self.inner = inner
        self.stop_at_end = stop_at_end
        """Stop with the last recorded message, as the recorded user did."""

    async def reply(self, conversation: list[Message], turn: int) -> UserReply:
        """The recorded message of `turn`, or the inner user's past `last`."""
        if turn > self.last:
            return await self.inner.reply(conversation, turn)
        text = self.fork.turns[turn].user
        final = turn == len(self.fork.turns) - 1
        return UserReply(text=text, stop=self.stop_at_end and final and self.fork.recorded_stop)


class ForkHooks:
    """One session's hooks: the probe on its tools and the user that replays the prefix."""

    def __init__(self, fork: ForkPlan, probe: ForkProbe, recorded_lane: bool) -> None:
        self.fork = fork
        self.probe = probe
        self.recorded_lane = recorded_lane

    def wrap(self, source: ToolSource) -> ToolSource:
        """The domain, probed at the fork."""
        return _ProbedSource(source, self.fork.turn, self.probe)

    def rewrite(self, scenario: Scenario) -> Scenario:
        """The scenario unchanged (it is judged as the original was)."""
        return scenario

    def wrap_user(self, user: User) -> User:
        """The recorded user up to the fork's turn, then the rest of the user side; the
        recorded lane's user is the recorded user throughout."""
        if self.recorded_lane:
            return PrefixUser(self.fork, len(self.fork.turns) - 1, _StopUser(), True)
        return PrefixUser(self.fork, self.fork.turn, user, False)


def _replies_this_turn(messages: list[Message]) -> int:
    count = 0
    for msg in reversed(messages):
        if msg.role == "user":
            break
        if msg.role == "assistant":
            count += 1
    return count


class ForkAgent:
    """The agent of one lane: the recorded decisions before the fork, then `agent` (or,
    for the recorded lane, the recorded decisions throughout).

    Stateless between requests: the turn and the agent messages already in the
    conversation say which recorded decision comes next. A reference agent that reads the
    task (the oracle) is shown the task from the fork on (`ForkPlan.rest`), with turns
    counted from the fork.
    """

    plays_users = False

    def __init__(self, forks: Mapping[str, ForkPlan], agent: Agent | None) -> None:
        self.forks = dict(forks)
        self.agent = agent
        self.name = agent.name if agent is not None else RECORDED_LANE

    def _recorded(self, fork: ForkPlan, request: AgentRequest) -> AgentResponse:
        turn = fork.turns[request.turn] if request.turn < len(fork.turns) else None
        done = _replies_this_turn(request.messages)
        if turn is None or done >= len(turn.replies):
            # Nothing more was recorded in this turn: hand back to the user.
            return AgentResponse(message=Message.assistant(""))
        return AgentResponse(message=turn.replies[done].model_copy(deep=True))

    async def respond(self, request: AgentRequest) -> AgentResponse:
        """The next recorded decision before the fork; the lane's agent's after it."""
        fork = self.forks[request.scenario.id if request.scenario else ""]
        if self.agent is None or request.turn < fork.turn:
            return self._recorded(fork, request)
        if isinstance(self.agent, OracleAgent):
            request = request.model_copy(
                update={"scenario": fork.rest, "turn": request.turn - fork.turn}
            )
        return await self.agent.respond(request)

    async def end_session(self, session_id: str) -> None:
        """Tell the lane's agent."""
        if self.agent is not None:
            await end_session(self.agent, session_id)

    async def aclose(self) -> None:
        """Nothing of its own: the lane's agent is closed by whoever made it."""
