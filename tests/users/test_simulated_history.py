"""The simulated user's flipped history, kept up to date incrementally, is always what
flipping the whole conversation gives."""

from __future__ import annotations

import pytest

from sessionproof.records import Message
from sessionproof.users._simulated import _flip, _Flipped


def test_the_incremental_history_equals_a_full_flip_as_the_conversation_grows() -> None:
    conversation: list[Message] = []
    history = _Flipped()
    for i in range(6):
        conversation.append(Message.assistant(f"agent {i}"))
        conversation.append(Message.user(f"user {i}"))
        conversation.append(Message.assistant(None))  # a tool-call turn: no text, hidden
        got = history.of(conversation)
        assert [m.model_dump() for m in got] == [m.model_dump() for m in _flip(conversation)]
        got.append(Message.user("a caller's edit"))  # a copy: the cache is not touched
    assert len(history.of(conversation)) == 12


@pytest.mark.slow
def test_a_rewritten_conversation_is_flipped_again_from_its_start() -> None:
    history = _Flipped()
    first = [Message.assistant("hello"), Message.user("hi")]
    history.of(first)
    other = [Message.user("a different start")]
    assert [m.content for m in history.of(other)] == ["a different start"]
    assert [m.role for m in history.of(other)] == ["assistant"]
