"""A run with a simulated user and an NL judge against a loopback OpenAI-compatible server,
stored once for the tests that read it (spans, report)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from sessionproof.runs import RunConfig, RunReport, run

from .roles_fake import roles_server


@pytest.fixture(scope="session")
def judged_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, RunReport]]:
    """(the store, the report) of 3 tau2 retail scenarios: agent-m plays the agent, user-m
    the simulated user, judge-m judges the NL assertions (scenario 2 has some)."""
    server = roles_server()
    store = tmp_path_factory.mktemp("judged") / "s.duckdb"
    try:
        report = run(
            RunConfig(
                suite="tau2-retail",
                limit=3,
                model=f"openai-compat:agent-m@{server.url}",
                user_model=f"openai-compat:user-m@{server.url}",
                judge=f"openai-compat:judge-m@{server.url}",
                store=store,
            )
        )
    finally:
        server.stop()
    yield store, report
