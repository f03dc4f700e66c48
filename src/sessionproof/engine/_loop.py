"""The session loop: user ↔ agent ↔ (guard ↔ faults ↔) domain, until a termination reason."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import time
import traceback
from dataclasses import dataclass, field
from typing import Any

from pydantic import TypeAdapter

from .._defaults import DEFAULT_AGENT_TIMEOUT_S as DEFAULT_AGENT_TIMEOUT_S
from .._defaults import DEFAULT_MAX_STEPS as DEFAULT_MAX_STEPS
from ..agents import Agent, AgentFailure, AgentRequest, AgentResponse, end_session
from ..agents._internal import (
    STOP_TOKEN,
    collect_model_calls,
    judge_seed,
    queue_time_excluded,
)
from ..domains import Domain, ToolContext, ToolSource
from ..domains._internal import result_from_exception, source_gone
from ..errors import InfraError, exception_text
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
)
from ..records._internal import AgentError, ModelCall, Usage
from ..users import User
from ._boundary import NoHooks, SessionHooks
from ._judge import Judge, with_termination
from ._model_boundary import ProviderFaults
from ._recorder import Recorder
from ._reply import MalformedReply, accept_reply
from ._user_tools import UserTools, user_reply

DEFAULT_MAX_ERRORS = 10
"""Failed tool calls allowed per session before it ends as too_many_errors."""


GOLD_PREFIX_REPLY = "Done."
"""The reply that closes each replayed turn of a gold prefix (as the oracle closes a turn)."""

_MESSAGES = TypeAdapter(list[Message])


@dataclass
class SessionPlan:
    """Everything that identifies one session of a run."""

    run_id: str
    session_id: str
    scenario: Scenario
    trial: int
    arm: str = "baseline"
    seed: int = 0
    """The session's seed: the environment's (tools, conditions) and, unless `agent_seed`
    says otherwise, the agent's."""
    agent_seed: int | None = None
    """The seed the agent's requests carry when it differs from `seed` (`run --vary`)."""
    judge_seed: int | None = None
    """The seed a model judge's requests carry (`run --vary`); None: the model's own."""
    metadata: dict[str, object] = field(default_factory=dict)
    """Copied into the session's metadata (`run --vary` records its seeds there)."""
    max_steps: int = DEFAULT_MAX_STEPS
    max_errors: int = DEFAULT_MAX_ERRORS
    agent_timeout: float | None = DEFAULT_AGENT_TIMEOUT_S
    """Seconds per agent decision; None waits for ever."""
    hooks: SessionHooks = field(default_factory=NoHooks)


@dataclass
class _End:
    reason: TerminationReason
    detail: str = ""


class _SessionRun:
    """State of one running session; `run()` drives it to the end."""

    def __init__(self, plan: SessionPlan, suite: Judge, agent: Agent, user: User) -> None:
        self.plan = plan
        self.suite = suite
        self.agent = agent
        self.user = user
        self.rec = Recorder(plan.run_id, plan.session_id)
        self.domain: Domain[Any] = suite.domain_for(plan.scenario).create()
        self.conversation: list[Message] = [Message.system(self.domain.policy)]
        self.usage = Usage()
        self.errors = 0
        self.tools: ToolSource = plan.hooks.wrap(self.domain)
        self.user_tools = UserTools.of(
            plan.scenario, plan.hooks, self.domain, self.rec, self._context
        )
        """The user's own tools (dual control), or None when the user holds none."""
        self._agent_seed = plan.seed if plan.agent_seed is None else plan.agent_seed
        self.provider_faults = ProviderFaults.of(plan, self.rec)

    @functools.cached_property
    def scenario_json(self) -> str:
        """The scenario as JSON, for an agent's own copy of it in each request (dumped on
        the first such request: a model's requests never carry it, and dumping it for every
        session cost ~0.06 ms of each session's set-up, in the first burst of a run)."""
        return self.plan.scenario.model_dump_json()

    def _model_calls(self, calls: list[ModelCall]) -> None:
        for call in calls:
            if call.role == "agent":  # the session's usage is the agent's alone
                self.usage = self.usage + call.usage
            self.rec.emit(EventKind.model_call, call)

    async def _user_turn(self) -> _End | None:
        # The user may work on its own tools before it speaks: their calls and results are
        # events of the user's side; the agent sees only what the user then says.
        reply = await user_reply(
            self.user,
            self.conversation,
            self.rec.turn,
            self.user_tools,
            self.rec,
            self._model_calls,
        )
        if reply.text:
            msg = Message.user(reply.text)
            self.conversation.append(msg)
            self.rec.emit(EventKind.user_message, msg)
        if reply.stop:
            return _End(TerminationReason.user_stop)
        return None

    def _context(self) -> ToolContext:
        return ToolContext(
            run_id=self.plan.run_id,
            session_id=self.plan.session_id,
            scenario_id=self.plan.scenario.id,
            trial=self.plan.trial,
            arm=self.plan.arm,
            turn=self.rec.turn,
            step=self.rec.step,
            seed=self.plan.seed,
            emit=self.rec.emit,
        )

    async def _call(self, call: ToolCall) -> ToolResult:
        start = time.perf_counter()
        try:
            return await self.tools.call_tool(call, self._context())
        except Exception as exc:
            # A source breaking its contract (results, not exceptions) is still one
            # classified failed call, not the end of the run.
            return result_from_exception(call, exc, start)

    async def _request(self) -> AgentRequest:
        tools = await self.tools.list_tools(self._context())
        if getattr(self.agent, "request_readonly", False) is True:
            # The provider adapters only read the conversation, and a model never sees the
            # scenario: no copies (5-8% of a tau2 run's CPU went to them).
            return AgentRequest.model_construct(
                messages=list(self.conversation),
                tools=tools,
                turn=self.rec.turn,
                step=self.rec.step,
                seed=self._agent_seed,
                scenario=None,
            )
        # Fresh copies for every request: an agent that edits what it was given must change
        # neither the conversation (later requests, the simulated user) nor the scenario it
        # is judged on. A dump and validate in pydantic-core is ~4x cheaper than deepcopy.
        return AgentRequest(
            messages=_MESSAGES.validate_python(_MESSAGES.dump_python(self.conversation)),
            tools=tools,
            turn=self.rec.turn,
            step=self.rec.step,
            seed=self._agent_seed,
            scenario=Scenario.model_validate_json(self.scenario_json),
            session_id=self.plan.session_id,
        )

    def _agent_failed(self, error_class: ErrorClass, detail: str) -> _End:
        """End the session on the agent's own failure, recorded as a classified event."""
        self.rec.emit(EventKind.agent_error, AgentError(error_class=error_class, message=detail))
        return _End(TerminationReason.too_many_errors, detail)

    def _crashed(self, exc: BaseException) -> _End:
        # An agent that crashes is the agent's failure, not infrastructure: record what
        # happened and end the session so the rest of the run goes on.
        where = traceback.extract_tb(exc.__traceback__)[-1:]
        at = f" at {where[0].filename}:{where[0].lineno}" if where else ""
        text = exception_text(exc)
        said = f": {text}" if text != type(exc).__name__ else ""
        return self._agent_failed(
            ErrorClass.unknown, f"agent raised {type(exc).__name__}{said}{at}"
        )

    async def _agent_decision(self) -> AgentResponse | _End:
        """Ask the agent for its next decision, within the time limit; accept only a reply
        that is plain JSON records (the one place agent output enters the session)."""
        request = await self._request()
        gone = source_gone(self.domain)
        if gone is not None:  # the tools could not even be listed: the harness's failure
            return _End(TerminationReason.infra_error, gone)
        limit = self.plan.agent_timeout
        deadline = asyncio.timeout(limit)
        try:
            async with deadline:
                with queue_time_excluded(deadline), self.provider_faults.model_call() as call:
                    reply = await self.agent.respond(request)
                    call.replied = True
        except InfraError as exc:
            return _End(TerminationReason.infra_error, str(exc))
        except AgentFailure as exc:
            return self._agent_failed(exc.error_class, exception_text(exc))
        except TimeoutError as exc:
            if not deadline.expired():  # the agent's own TimeoutError, not our limit
                return self._crashed(exc)
            return self._agent_failed(
                ErrorClass.timeout, f"the agent gave no reply within {limit:g} s"
            )
        except asyncio.CancelledError as exc:
            task = asyncio.current_task()
            if task is None or task.cancelling():
                raise  # the run itself is being cancelled (Ctrl-C): let it stop
            return self._crashed(exc)  # raised by the agent, with nobody cancelling it
        except (KeyboardInterrupt, SystemExit):
            raise  # a request to stop the program, whoever raised it
        except BaseException as exc:
            # Exceptions, and the other BaseExceptions an agent can raise (GeneratorExit, a
            # user's own subclass): this is the agent boundary, so all are its failure.
            return self._crashed(exc)
        try:
            return accept_reply(reply, getattr(self.agent, "replies_fresh", False) is True)
        except MalformedReply as exc:
            return self._agent_failed(ErrorClass.malformed_output, str(exc))

    async def _act(self, response: AgentResponse) -> _End | None:
        """Record the reply, run its tool calls in order; an _End when the session is over."""
        self._model_calls(response.model_calls)
        for issue in response.issues:
            self.rec.emit(EventKind.agent_error, AgentError(**issue.model_dump()))
        msg = response.message
        self.conversation.append(msg)
        self.rec.emit(EventKind.assistant_message, msg)
        if not msg.tool_calls:
            self.rec.step += 1
            if msg.content and STOP_TOKEN in msg.content:
                return _End(TerminationReason.agent_stop)
            return None
        end: _End | None = None
        for call in msg.tool_calls:
            if self.rec.step >= self.plan.max_steps:
                return _End(TerminationReason.max_steps, "step limit reached mid-message")
            self.rec.emit(EventKind.tool_call, call)
            result = await self._call(call)
            self.rec.emit(EventKind.tool_result, result)
            self.conversation.append(Message.tool(result))
            self.rec.step += 1
            if not result.ok:
                self.errors += 1
                gone = source_gone(self.domain)
                if gone is not None:  # the tools cannot go on: the harness's failure
                    return _End(TerminationReason.infra_error, gone)
            elif call.name in self.domain.transfer_tools:
                end = end or _End(TerminationReason.transfer, f"{call.name} called")
        if end:
            return end
        if self.errors >= self.plan.max_errors:
            return _End(TerminationReason.too_many_errors, f"{self.errors} failed tool calls")
        return None

    async def _turn(self) -> _End | None:
        """One user turn and every agent decision until the agent hands back to the user."""
        end = await self._user_turn()
        if end:
            return end
        while True:
            if self.rec.step >= self.plan.max_steps:
                return _End(TerminationReason.max_steps, f"{self.plan.max_steps} steps")
            response = await self._agent_decision()
            if isinstance(response, _End):
                return response
            end = await self._act(response)
            if end:
                return end
            if not response.message.tool_calls:
                return None

    async def _gold_prefix(self, start: int) -> None:
        """Replay the gold history of the turns before `start` (the gold-prefix reading):
        each turn's user message, its gold actions run on the bare domain (no faults, drift
        or guard: the prefix is the reference, not a session under test), a closing reply.

        Nothing of it is recorded as events: the trace holds only what the agent did.
        """
        scenario = self.plan.scenario
        turns = scenario.user.turns or []
        for turn in range(start):
            self.rec.turn = turn
            if self.user_tools is not None:
                await self.user_tools.replay(scenario.user.actions, turn)
            if turn < len(turns) and turns[turn]:
                self.conversation.append(Message.user(turns[turn]))
            calls = [
                ToolCall(id=f"gold-{turn}-{i}", name=a.tool, arguments=dict(a.args))
                for i, a in enumerate(
                    a for a in scenario.criteria.gold_actions if (a.turn or 0) == turn
                )
            ]
            if calls:
                self.conversation.append(Message.assistant(None, calls))
                for call in calls:
                    result = await self.domain.call_tool(call, self._context())
                    self.conversation.append(Message.tool(result))
            self.conversation.append(Message.assistant(GOLD_PREFIX_REPLY))
        self.rec.turn = start

    async def _end_agent_session(self) -> None:
        # An agent failing to clean up must not lose the session it ends.
        with contextlib.suppress(Exception):
            await end_session(self.agent, self.plan.session_id)

    async def run(self) -> tuple[Session, Domain[Any]]:
        started = time.time()
        try:
            if self.plan.scenario.start_turn:
                await self._gold_prefix(self.plan.scenario.start_turn)
            while True:
                end = await self._turn()
                if end:
                    break
                self.rec.turn += 1
        finally:
            try:
                await self.tools.aclose()
                if self.user_tools is not None:
                    await self.user_tools.aclose()
            finally:
                await self._end_agent_session()
        self.rec.emit(EventKind.end, Termination(termination=end.reason, detail=end.detail))
        session = Session(
            run_id=self.plan.run_id,
            session_id=self.plan.session_id,
            scenario_id=self.plan.scenario.id,
            trial=self.plan.trial,
            arm=self.plan.arm,
            model=self.agent.name,
            events=self.rec.events,
            termination=end.reason,
            termination_detail=end.detail,
            usage=self.usage,
            started_at=started,
            ended_at=time.time(),
        )
        if self.plan.metadata:
            session.metadata.update(self.plan.metadata)
        return session, self.domain


async def run_session(plan: SessionPlan, suite: Judge, agent: Agent, user: User) -> Session:
    """Run one session to its end and judge it (infra errors are not judged)."""
    runner = _SessionRun(plan, suite, agent, user)
    session, domain = await runner.run()
    if session.termination is not TerminationReason.infra_error:
        with collect_model_calls() as judged_by, judge_seed(plan.judge_seed):
            judged = suite.evaluate(plan.scenario, session, domain)
        for call in judged_by:  # the NL judge's calls, recorded before its verdict
            runner.rec.emit(EventKind.model_call, call)
        outcome: Outcome = with_termination(judged, session.termination)
        session.outcome = outcome
        runner.rec.emit(EventKind.verdict, outcome)
        session.events = runner.rec.events
    return session
