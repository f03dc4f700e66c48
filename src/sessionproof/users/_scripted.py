"""Scripted users: fixed turns, then stop; optionally fixed calls on their own tools."""

from __future__ import annotations

from collections.abc import Sequence

from ..records import Action, Message, ToolCall, ToolResult, ToolSpec
from ._protocol import UserReply

ACTED_REPLY = "I did that on my side."
"""What the stand-in user of a reference agent says after a turn's own calls."""


def _calls_for(actions: Sequence[Action], turn: int) -> list[ToolCall]:
    return [
        ToolCall(id=f"user-{turn}-{i}", name=a.tool, arguments=dict(a.args))
        for i, a in enumerate(a for a in actions if (a.turn or 0) == turn)
    ]


class ScriptedUser:
    """Sends the scenario's turns one per user turn, then ends the session (user_stop).

    With `actions` (`UserSpec.actions`), each turn first makes that turn's calls on the
    user's own tools, then says its line."""

    def __init__(self, turns: list[str], actions: Sequence[Action] = ()) -> None:
        self.turns = list(turns)
        self.actions = list(actions)
        self._acted: set[int] = set()
        self.results: list[ToolResult] = []
        """Every result the user's own calls returned, in order (for tests and reading)."""

    def give_tools(self, tools: list[ToolSpec]) -> None:
        """A scripted user calls what its script says, whatever it is shown."""

    def observe(self, calls: list[ToolCall], results: list[ToolResult]) -> None:
        """Keep the results; a script does not react to them."""
        self.results.extend(results)

    def _own_calls(self, turn: int) -> list[ToolCall]:
        if turn in self._acted:
            return []
        self._acted.add(turn)
        return _calls_for(self.actions, turn)

    async def reply(self, conversation: list[Message], turn: int) -> UserReply:
        """The turn's own calls first (once), then the next scripted turn, or a stop when
        the script is done."""
        calls = self._own_calls(turn) if turn < len(self.turns) else []
        if calls:
            return UserReply(tool_calls=calls)
        if turn < len(self.turns):
            return UserReply(text=self.turns[turn])
        return UserReply(stop=True)


class InstructionUser(ScriptedUser):
    """A stand-in for a simulated user when no user model is available (reference agents).

    It states the scenario's instructions as one message and stops after the agent answers,
    which is all a reference agent such as the oracle needs. With `actions` on its own
    tools, it makes each turn's calls before speaking, says `ACTED_REPLY` on the turns
    after the first, and stops after the last turn with calls.
    """

    def __init__(self, instructions: str, actions: Sequence[Action] = ()) -> None:
        last = max((a.turn or 0 for a in actions), default=0)
        super().__init__([instructions] + [ACTED_REPLY] * last, actions)
