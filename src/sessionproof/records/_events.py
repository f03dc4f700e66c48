"""Trace events: the one backbone every later feature reads."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class EventKind(StrEnum):
    """What an `Event` records. Payload shapes are documented per kind."""

    user_message = "user_message"
    """payload: `Message` (role user)."""
    assistant_message = "assistant_message"
    """payload: `Message` (role assistant: text and the tool calls it carries)."""
    tool_call = "tool_call"
    """payload: `ToolCall`."""
    tool_result = "tool_result"
    """payload: `ToolResult`."""
    model_call = "model_call"
    """payload: `ModelCall` (provider, model, tokens, latency; never a secret)."""
    agent_error = "agent_error"
    """payload: {error_class, message}: the model's reply itself was unusable."""
    fault_injected = "fault_injected"
    """payload: {call_id, tool, error_class, committed}."""
    drift_applied = "drift_applied"
    """payload: {kind, tool, detail}."""
    guard_decision = "guard_decision"
    """payload: {call_id, tool, decision, error_class, attempt, wait_s, detail}."""
    end = "end"
    """payload: {termination, detail}."""
    verdict = "verdict"
    """payload: `Outcome`."""


class Event(BaseModel):
    """One thing that happened in a session, in order."""

    model_config = ConfigDict(extra="forbid")

    run_id: str
    session_id: str
    seq: int
    """Monotonic within the session, from 0."""
    turn: int
    """Index of the user turn this event belongs to (0-based)."""
    step: int
    """Index of the agent decision this event belongs to (0-based, across the session)."""
    t_wall: float
    """Unix time, seconds."""
    t_mono: float
    """Monotonic clock, seconds; differences are meaningful within one process."""
    kind: EventKind
    payload: dict[str, Any] = Field(default_factory=dict)
