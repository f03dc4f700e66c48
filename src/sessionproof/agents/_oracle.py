"""The oracle: the scenario's reference agent, with no error handling of its own."""

from __future__ import annotations

from ..records import Action, Message, Scenario, ToolCall
from ._protocol import AgentRequest, AgentResponse


def _actions_for_turn(scenario: Scenario, turn: int, last_turn: int) -> list[Action]:
    # An action tagged for a turn past the script's end runs at the last turn, so no gold
    # action is ever skipped; untagged actions belong to the first turn.
    return [
        a
        for a in scenario.criteria.gold_actions
        if min(a.turn if a.turn is not None else 0, last_turn) == turn
    ]


class OracleAgent:
    """Performs the scenario's gold actions and says the facts it must communicate.

    At each user turn it emits that turn's gold actions in one assistant message (parallel
    calls), then replies with every `communicate` fact, asking for any value the next turn's
    gold actions need that the user withholds until asked (`Action.ask_first`). It never
    retries or reacts to a tool error: that makes it the clean reference for measuring faults
    and the guard.
    """

    name = "oracle"
    reference = True
    """A reference agent: a stand-in user makes the user's reference calls for it (a task
    whose fix is partly the user's, on the user's own tools, is then the reference whole)."""
    plays_users = False
    """A reference agent, not a language model: it cannot play the simulated user."""

    async def respond(self, request: AgentRequest) -> AgentResponse:
        """Gold calls first, then the facts."""
        scenario = request.scenario
        if scenario is None:
            return AgentResponse(message=Message.assistant("I have no scenario to follow."))
        last_turn = _last_turn(scenario)
        acted = _already_acted_this_turn(request.messages)
        actions = [] if acted else _actions_for_turn(scenario, request.turn, last_turn)
        if actions:
            calls = [
                ToolCall(id=f"oracle-{request.turn}-{i}", name=a.tool, arguments=dict(a.args))
                for i, a in enumerate(actions)
            ]
            return AgentResponse(message=Message.assistant(None, calls))
        facts = scenario.criteria.communicate
        text = "Done." if not facts else "Done. " + "; ".join(facts) + "."
        wanted = _values_to_ask_for(scenario, request.turn, last_turn)
        if wanted:
            # The next turn's gold action needs a value the user gives only when asked:
            # asking is the reference behaviour, guessing it would be wrong.
            text += " Could you tell me the " + " and the ".join(wanted) + "?"
        return AgentResponse(message=Message.assistant(text))

    async def aclose(self) -> None:
        """Nothing to release."""


def _last_turn(scenario: Scenario) -> int:
    """The user's last turn: its script's, or that of its last own call (a stand-in user
    speaks once per turn up to it, as `InstructionUser` does)."""
    user = scenario.user
    return max(len(user.turns or []) - 1, *((a.turn or 0) for a in user.actions), 0)


def _values_to_ask_for(scenario: Scenario, turn: int, last_turn: int) -> list[str]:
    """The withheld arguments (`ask_first`) of the next turn's gold actions, as words."""
    if turn >= last_turn:
        return []
    names = [n for a in _actions_for_turn(scenario, turn + 1, last_turn) for n in a.ask_first]
    return [n.replace("_", " ") for n in dict.fromkeys(names)]


def _already_acted_this_turn(messages: list[Message]) -> bool:
    for msg in reversed(messages):
        if msg.role == "user":
            return False
        if msg.role == "assistant" and msg.tool_calls:
            return True
    return False
