"""The tool boundary: the engine lists and calls one `ToolSource` per session.

A session's source is its domain, wrapped by its condition's hooks (faults, drift, the
guard — composed in `conditions`); the engine knows nothing of what the wrappers do.
"""

from __future__ import annotations

from typing import Protocol

from ..domains import ToolSource


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
