"""The tool boundary: the engine lists and calls one `ToolSource` per session.

A session's source is its domain, wrapped by its condition's hooks (faults, drift, the
guard — composed in `conditions`); the engine knows nothing of what the wrappers do.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from ..domains import ToolSource
from ..records import Scenario
from ..users import User


class SessionHooks(Protocol):
    """Per-session condition behaviour: the tool source the agent meets."""

    def wrap(self, source: ToolSource) -> ToolSource:
        """The session's tool source around the domain's (listing and calling sides)."""
        ...


class NoHooks:
    """The baseline condition: the domain's tools as defined."""

    def wrap(self, source: ToolSource) -> ToolSource:
        """The source unchanged."""
        return source


@runtime_checkable
class ScenarioHooks(Protocol):
    """Hooks that also change the user side (imperfect instructions): the scenario a session
    runs and is judged on, and the user who plays it. Optional: the engine checks for it."""

    def rewrite(self, scenario: Scenario) -> Scenario:
        """The scenario the session runs (called once, before `wrap_user`)."""
        ...

    def wrap_user(self, user: User) -> User:
        """The user of the rewritten scenario, given the one the engine would use."""
        ...
