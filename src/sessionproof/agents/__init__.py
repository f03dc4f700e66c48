"""Agents: one protocol, many adapters (providers, the embedded model, reference agents)."""

from ._oracle import OracleAgent
from ._protocol import (
    REFERENCE_SPECS,
    STOP_TOKEN,
    Agent,
    AgentRequest,
    AgentResponse,
    OutputIssue,
    plays_users,
)
from ._scripted import ScriptedAgent
from ._spec import ACCEPTED, display_spec, make_agent

__all__ = [
    "ACCEPTED",
    "REFERENCE_SPECS",
    "STOP_TOKEN",
    "Agent",
    "AgentRequest",
    "AgentResponse",
    "OracleAgent",
    "OutputIssue",
    "ScriptedAgent",
    "display_spec",
    "make_agent",
    "plays_users",
]
