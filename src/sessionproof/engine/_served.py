"""A session driven from outside: an agent calls the tools itself (over MCP, `serve`).

There is no user and no agent loop here: the tools of one scenario, wrapped by its arm's
hooks exactly as in a run, answer calls as they come; each call and its result are recorded
as the loop records them (so metrics, patterns and the report read the session as any
other), and when the client is done the session is judged on the final state.
"""

from __future__ import annotations

import itertools
import time
from typing import Any

from ..domains import Domain, ToolContext, ToolSource, result_from_exception
from ..records import (
    EventKind,
    Outcome,
    Scenario,
    Session,
    Termination,
    TerminationReason,
    ToolCall,
    ToolResult,
    ToolSpec,
)
from ._boundary import NoHooks, SessionHooks
from ._judge import Judge, with_termination
from ._recorder import Recorder


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
        """The tools as the agent sees them now (drift included)."""
        return await self.tools.list_tools(self._context())

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        """One call through the arm's wrappers, recorded as a tool call and its result."""
        if self.session is not None:
            raise RuntimeError("the served session has ended")
        call = ToolCall(id=f"call-{next(self._ids)}", name=name, arguments=arguments)
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
        try:
            await self.tools.aclose()
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
            outcome: Outcome = with_termination(
                self.judge.evaluate(self.scenario, session, self.domain), reason
            )
            session.outcome = outcome
            self.rec.emit(EventKind.verdict, outcome)
            session.events = self.rec.events
        self.session = session
        return session
