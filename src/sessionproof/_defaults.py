"""Defaults the command line shows in its help, in a leaf module: declaring the commands'
options must not load the store (DuckDB) or the engine (pydantic, the agents) they describe.
`store` and `engine` export these same objects."""

from __future__ import annotations

from pathlib import Path

DEFAULT_STORE_PATH = Path(".sessionproof") / "store.duckdb"
"""Where the store lives unless told otherwise (relative to the working directory)."""

DEFAULT_MAX_STEPS = 40
"""Agent decisions (a text reply or one tool call) allowed per session."""

DEFAULT_AGENT_TIMEOUT_S = 600.0
"""Seconds one agent decision may take before the session ends as a `timeout` agent error."""
