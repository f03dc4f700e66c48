"""Agents that only read their requests get them uncopied and without the scenario; every
other agent still gets fresh copies it may edit freely."""

from __future__ import annotations

from sessionproof.agents import AgentRequest, AgentResponse
from sessionproof.records import Message
from sessionproof.runs import RunConfig, run


class Recording:
    """Says "done" and keeps every request it got; edits them when told to."""

    name = "recording"

    def __init__(self, *, readonly: bool, vandal: bool = False) -> None:
        self.request_readonly = readonly
        self.vandal = vandal
        self.requests: list[AgentRequest] = []

    async def respond(self, request: AgentRequest) -> AgentResponse:
        self.requests.append(request)
        if self.vandal:
            request.messages[0].content = "vandalised"
            if request.scenario is not None:
                request.scenario.id = "vandalised"
        return AgentResponse(message=Message.assistant("Done. ###STOP###"))

    async def aclose(self) -> None:
        pass


def test_readonly_agents_get_no_scenario_and_no_copies() -> None:
    agent = Recording(readonly=True)
    report = run(RunConfig(suite="demo", model=agent, limit=1))
    assert report.sessions and agent.requests
    assert all(r.scenario is None for r in agent.requests)
    assert all(r.messages and r.messages[0].role == "system" for r in agent.requests)


def test_other_agents_still_get_copies_they_may_edit() -> None:
    agent = Recording(readonly=False, vandal=True)
    report = run(RunConfig(suite="demo", model=agent, limit=1))
    (session,) = report.sessions
    assert agent.requests[0].scenario is not None
    assert session.scenario_id != "vandalised"
    assert "vandalised" not in session.model_dump_json()
