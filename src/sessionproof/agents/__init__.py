"""Agents: one protocol, many adapters (providers, the embedded model, reference agents)."""

from ._oracle import STOP_TOKEN, OracleAgent
from ._protocol import Agent, AgentRequest, AgentResponse, OutputIssue
from ._scripted import ScriptedAgent

__all__ = [
    "STOP_TOKEN",
    "Agent",
    "AgentRequest",
    "AgentResponse",
    "OracleAgent",
    "OutputIssue",
    "ScriptedAgent",
]
