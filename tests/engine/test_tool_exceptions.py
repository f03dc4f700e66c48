"""A tool exception is turned into a classified result even when it cannot be printed."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from sessionproof.agents import ScriptedAgent
from sessionproof.domains import Domain, DomainSpec, Toolkit, register_domain, tool
from sessionproof.engine import SessionPlan, run_session
from sessionproof.records import (
    ErrorClass,
    Message,
    Scenario,
    TerminationReason,
    ToolCall,
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
