"""The environment's Gymnasium spaces: JSON text in, JSON text out (`_actions` has the
shapes). Both are Gymnasium `Text` spaces whose membership is the JSON shape, and whose
samples are valid (Gymnasium's checker steps with a sampled action)."""

from __future__ import annotations

import json
import string
from typing import Any

from ._actions import OBSERVATION_KEYS, is_action, is_observation
from ._gym import Text

MAX_TEXT = 1 << 24
"""The longest observation or action text (16 MiB of JSON): a bound Gymnasium's `Text`
needs; a conversation the step limit allows stays far below it."""

_WORDS = ("ok", "sure", "thanks", "let", "me", "check", "that", "for", "you", "done")


class ActionSpace(Text):
    """JSON text of one agent decision: `{"content": ...}` and/or `{"tool_calls": [...]}`.
    A sample is a short text reply (drawn from `np_random`)."""

    def __init__(self) -> None:
        """Up to `MAX_TEXT` characters of printable ASCII (non-ASCII is escaped in JSON)."""
        super().__init__(max_length=MAX_TEXT, min_length=1, charset=string.printable)

    def contains(self, x: Any) -> bool:
        """True for text (or a record) `SessionEnv.step` reads as an action."""
        return is_action(x)

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        """A text reply of a few words."""
        count = int(self.np_random.integers(1, 6))
        words = [_WORDS[int(i)] for i in self.np_random.integers(0, len(_WORDS), size=count)]
        return json.dumps({"content": " ".join(words)})

    def __repr__(self) -> str:
        """The space by what it holds."""
        return "ActionSpace(JSON text: content and/or tool_calls)"


class ObservationSpace(Text):
    """JSON text of what the agent sees: `{"messages", "tools", "turn", "step"}`."""

    def __init__(self) -> None:
        """Up to `MAX_TEXT` characters of printable ASCII (observations escape the rest)."""
        super().__init__(max_length=MAX_TEXT, min_length=1, charset=string.printable)

    def contains(self, x: Any) -> bool:
        """True for observation text (see `_actions.is_observation`)."""
        return is_observation(x)

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        """An observation with one user message and no tools."""
        turn = int(self.np_random.integers(0, 3))
        message = {"role": "user", "content": "Hello.", "tool_calls": []}
        data: dict[str, Any] = {"messages": [message], "tools": [], "turn": turn, "step": 0}
        return json.dumps({key: data[key] for key in OBSERVATION_KEYS})

    def __repr__(self) -> str:
        """The space by what it holds."""
        return "ObservationSpace(JSON text: messages, tools, turn, step)"
