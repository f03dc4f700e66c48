"""A tool exception is turned into a classified result even when it cannot be printed."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from sessionproof.agents import ScriptedAgent
from sessionproof.domains import (
    Domain,
    DomainSpec,
    ToolContext,
    Toolkit,
    ToolSource,
    WrapperToolSource,
    register_domain,
    tool,
)
from sessionproof.engine import run_session
from sessionproof.engine._internal import SessionPlan
from sessionproof.records import (
    ErrorClass,
    Message,
    Scenario,
    TerminationReason,
    ToolCall,
    ToolResult,
    UserSpec,
)
from sessionproof.suites import Suite
from sessionproof.users import ScriptedUser


class _Unprintable(Exception):
    """An exception whose own `__str__` is broken (third-party tools have these)."""

    def __str__(self) -> str:
        raise ValueError("__str__ is broken too")


class _Nothing(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _BadTools(Toolkit[_Nothing]):
    @tool()
    def fragile(self) -> str:
        """Fails with an exception that cannot be turned into text."""
        raise _Unprintable()


class _BadSpec(DomainSpec):
    name = "unprintable-errors"

    def create(self) -> Domain[Any]:
        db = _Nothing()
        return Domain(self.name, db, _BadTools(db), policy="")


register_domain(_BadSpec())


async def test_tool_exception_with_broken_str_becomes_a_result() -> None:
    sc = Scenario(id="s", domain="unprintable-errors", user=UserSpec(turns=["go"]))
    agent = ScriptedAgent(
        [Message.assistant(None, [ToolCall(id="c1", name="fragile", arguments={})])]
    )
    plan = SessionPlan(run_id="r", session_id="s", scenario=sc, trial=0)
    session = await run_session(plan, Suite("t", [sc]), agent, ScriptedUser(["go"]))
    results = session.tool_results()
    assert len(results) == 1
    assert results[0].error_class is not None
    assert results[0].error_class is not ErrorClass.malformed_output
    assert "_Unprintable" in (results[0].error or "")
    assert session.termination is TerminationReason.user_stop


async def test_agent_exception_with_broken_str_ends_only_its_session() -> None:
    def crash(_: object) -> Message:
        raise _Unprintable()

    sc = Scenario(id="s", domain="unprintable-errors", user=UserSpec(turns=["go"]))
    plan = SessionPlan(run_id="r", session_id="s", scenario=sc, trial=0)
    session = await run_session(plan, Suite("t", [sc]), ScriptedAgent(crash), ScriptedUser(["go"]))
    assert session.termination is TerminationReason.too_many_errors
    assert "_Unprintable" in session.termination_detail


class _Broken(WrapperToolSource):
    """A source that breaks its contract: it raises instead of returning a result."""

    async def call_tool(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        raise ConnectionResetError("peer went away")


class _BrokenHooks:
    def wrap(self, source: ToolSource) -> ToolSource:
        return _Broken(source)


async def test_a_source_that_raises_is_one_classified_failed_call() -> None:
    sc = Scenario(id="s", domain="unprintable-errors", user=UserSpec(turns=["go"]))
    agent = ScriptedAgent(
        [Message.assistant(None, [ToolCall(id="c1", name="fragile", arguments={})])]
    )
    plan = SessionPlan(run_id="r", session_id="s", scenario=sc, trial=0, hooks=_BrokenHooks())
    session = await run_session(plan, Suite("t", [sc]), agent, ScriptedUser(["go"]))
    [result] = session.tool_results()
    assert result.error_class is not None and "peer went away" in (result.error or "")
    assert session.termination is TerminationReason.user_stop
