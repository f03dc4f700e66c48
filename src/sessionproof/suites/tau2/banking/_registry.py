"""Every discoverable agent tool this package implements, and how unlocking shows one."""

from __future__ import annotations

from ._disc_accounts import ACCOUNTS
from ._discoverable import BASIC, Discoverable

DISCOVERABLE: dict[str, Discoverable] = {**BASIC, **ACCOUNTS}
"""Tool name → the tool."""


def describe(name: str) -> str:
    """What unlocking a tool shows the agent: its description and parameters."""
    tool = DISCOVERABLE[name]
    lines = []
    for pname, kind, what in tool.params:
        optional = kind.endswith(", optional")
        base = kind.removesuffix(", optional")
        lines.append(f"  - {pname}: {base} ({'optional' if optional else 'required'}) - {what}")
    params = "\n".join(lines) or "  (no parameters)"
    return f"Tool: {name}\nDescription: {tool.description}\nParameters:\n{params}"
