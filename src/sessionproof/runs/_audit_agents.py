"""The two probes an audit runs beside the oracle: an agent that does nothing and one that
only reads.

A task either of them passes checks too little: a do-nothing agent passing means the
criteria hold before anyone acts (trivial); a read-only agent passing a task whose gold
actions write means the writes are never checked (leaky). Both are references, not models:
they never play a simulated user.
"""

from __future__ import annotations

from ..agents import AgentRequest, AgentResponse
from ..records import Action, Message, Scenario, ToolCall

REFUSAL = "I am sorry, I cannot help with that."
"""The do-nothing agent's every reply."""


class DoNothingAgent:
    """Answers every turn with a polite refusal: no tool call, no fact."""

    name = "audit:do-nothing"
    plays_users = False
    """A reference, not a language model."""

    async def respond(self, request: AgentRequest) -> AgentResponse:
        """The refusal."""
        return AgentResponse(message=Message.assistant(REFUSAL))

    async def aclose(self) -> None:
        """Nothing to release."""


def _turn_actions(scenario: Scenario, turn: int) -> list[Action]:
    """The gold actions a reference makes at user turn `turn` (the oracle's rule: untagged
    actions belong to the first turn, actions past the script's end to its last)."""
    last = max(len(scenario.user.turns or []) - 1, 0)
    return [a for a in scenario.criteria.gold_actions if min(a.turn or 0, last) == turn]


def _acted(messages: list[Message]) -> bool:
    for message in reversed(messages):
        if message.role == "user":
            return False
        if message.role == "assistant" and message.tool_calls:
            return True
    return False


class ReadOnlyAgent:
    """The oracle without its writes: each turn's gold calls to tools that do not write
    (as the domain lists them), then every fact the scenario wants said."""

    name = "audit:read-only"
    plays_users = False
    """A reference, not a language model."""

    async def respond(self, request: AgentRequest) -> AgentResponse:
        """The turn's read calls first, then the facts."""
        scenario = request.scenario
        if scenario is None:
            return AgentResponse(message=Message.assistant(REFUSAL))
        if not _acted(request.messages):
            writes = {t.name for t in request.tools if t.write}
            known = {t.name for t in request.tools}
            reads = [
                a
                for a in _turn_actions(scenario, request.turn)
                if a.tool in known and a.tool not in writes
            ]
            if reads:
                calls = [
                    ToolCall(id=f"read-{request.turn}-{i}", name=a.tool, arguments=dict(a.args))
                    for i, a in enumerate(reads)
                ]
                return AgentResponse(message=Message.assistant(None, calls))
        facts = scenario.criteria.communicate
        text = "Done." if not facts else "Done. " + "; ".join(facts) + "."
        return AgentResponse(message=Message.assistant(text))

    async def aclose(self) -> None:
        """Nothing to release."""
