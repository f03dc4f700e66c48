"""Agents that replay a transcript's own tool calls, for reruns without the domain.

`replay` makes the original agent's answered calls, in order, one per decision, then says it
is done; `replay_changed` does the same but asks its first call for a different record.
Both find the transcript by the rerun scenario's id (the transcript id) in the shared tau2
trajectories.
"""

from __future__ import annotations

from functools import cache

from sessionproof.agents import AgentRequest
from sessionproof.domains.sources._internal import RecordedCall, recorded_calls
from sessionproof.importers import import_file
from sessionproof.records import Message, ToolCall

from ._files import TRAJECTORIES


@cache
def _calls() -> dict[str, list[RecordedCall]]:
    out: dict[str, list[RecordedCall]] = {}
    for path in TRAJECTORIES:
        for imported in import_file(path, "tau2", run_id="replay").sessions:
            out[imported.session.session_id] = recorded_calls(imported.session)
    return out


def _next(request: AgentRequest, change_first: bool) -> Message:
    assert request.scenario is not None
    calls = _calls()[request.scenario.id]
    made = sum(len(m.tool_calls) for m in request.messages if m.role == "assistant")
    if made >= len(calls):
        return Message.assistant("Done.")
    recorded = calls[made]
    args = dict(recorded.arguments)
    if change_first and made == 0:
        args["__changed__"] = "not what the original asked"
    return Message.assistant(None, [ToolCall(id=f"r{made}", name=recorded.tool, arguments=args)])


def replay(request: AgentRequest) -> Message:
    """The original agent's calls, in order."""
    return _next(request, change_first=False)


def replay_changed(request: AgentRequest) -> Message:
    """The original agent's calls with the first one's arguments changed."""
    return _next(request, change_first=True)
