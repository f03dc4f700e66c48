"""The cost split end to end: `run` against a loopback OpenAI-compatible server with a
simulated user and a judge, `show --metrics` re-pricing it, a model without a price reported
as tokens only, and a bad price file refused before anything runs."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sessionproof.cli._internal import app

from ..agents.fakeprovider import FakeProvider
from .roles_fake import USAGE, roles_server

runner = CliRunner()


@pytest.fixture
def server() -> Iterator[FakeProvider]:
    fake = roles_server()
    yield fake
    fake.stop()


def _invoke(*args: str, code: int = 0) -> Any:
    result = runner.invoke(app, list(args))
    assert result.exit_code == code, result.output
    return result


def _run(server: FakeProvider, store: Path, *extra: str) -> Any:
    url = server.url
    return _invoke(
        "run",
        "--suite", "tau2-retail",
        "--limit", "3",
        "--model", f"openai-compat:agent-m@{url}",
        "--user-model", f"openai-compat:user-m@{url}",
        "--judge", f"openai-compat:judge-m@{url}",
        "--price", "agent-m=2.5/10",
        "--price", "openai-compat:user-m=0.5/1",
        "--store", str(store),
        "--no-report",
        *extra,
    )  # fmt: skip


@pytest.mark.slow
def test_a_run_splits_its_cost_between_agent_user_and_judge(
    server: FakeProvider, tmp_path: Path
) -> None:
    store = tmp_path / "s.duckdb"
    out = json.loads(_run(server, store, "--json").stdout)
    cost = out["arms"]["baseline"]["cost"]
    # Every call the server answered is counted once, under whoever made it.
    seen = Counter(p.body["model"] for p in server.posts())
    role_of = {"agent-m": "agent", "user-m": "user", "judge-m": "judge"}
    for model, role in role_of.items():
        tokens = cost["tokens"][role]
        assert tokens["calls"] == seen[model] > 0, role
        assert tokens["input_tokens"] == seen[model] * USAGE[model]["prompt_tokens"]
        assert tokens["output_tokens"] == seen[model] * USAGE[model]["completion_tokens"]
    agent_usd = seen["agent-m"] * (100 * 2.5 + 10 * 10) / 1e6
    user_usd = seen["user-m"] * (40 * 0.5 + 4 * 1) / 1e6
    assert cost["usd"]["agent"] == pytest.approx(agent_usd)
    assert cost["usd"]["user"] == pytest.approx(user_usd)
    # The judge's model has no price: tokens only, said, and no total made up.
    assert cost["usd"]["judge"] is None and cost["total_usd"] is None
    assert cost["unpriced_models"] == ["openai-compat:judge-m"]
    assert cost["per_session"]["usd"] is None and cost["per_session"]["tokens"] > 0
    assert cost["per_success"]["undefined"] == "undefined (no successful session)"
    assert cost["prices_as_of"] == "2026-12-06"
    # The agent's usage in the session summary is the agent's alone.
    run_id = out["run_id"]
    shown = json.loads(
        _invoke(
            "show", run_id, "--metrics", "--json", "--store", str(store),
            "--price", "agent-m=2.5/10", "--price", "user-m=0.5/1", "--price", "judge-m=1/2",
        ).stdout
    )  # fmt: skip
    again = shown["arms"]["baseline"]["cost"]
    judge_usd = seen["judge-m"] * (1000 * 1 + 50 * 2) / 1e6
    assert again["tokens"] == cost["tokens"] and again["unpriced_models"] == []
    assert again["total_usd"] == pytest.approx(agent_usd + user_usd + judge_usd)
    assert again["per_session"]["usd"] == pytest.approx((agent_usd + user_usd + judge_usd) / 3)
    assert "cost_per_success" in shown["definitions"]
    # The plain summary's JSON has each arm's cost too, priced as asked.
    summary = json.loads(
        _invoke("show", run_id, "--json", "--store", str(store), "--price", "judge-m=1/2").stdout
    )
    plain = summary["arms"]["baseline"]["cost"]
    assert plain["tokens"] == cost["tokens"] and plain["usd"]["judge"] == pytest.approx(judge_usd)
    assert plain["unpriced_models"] == ["openai-compat:agent-m", "openai-compat:user-m"]
    # Unpriced everywhere but the shipped table: tokens only, every model named.
    table = _invoke("show", run_id, "--metrics", "--store", str(store)).stdout
    for model in ("agent-m", "user-m", "judge-m"):
        assert f"no price for openai-compat:{model}: tokens only" in table
    assert "prices as of 2026-12-06" in table


@pytest.mark.slow
def test_the_run_line_names_the_model_without_a_price(server: FakeProvider, tmp_path: Path) -> None:
    text = _run(server, tmp_path / "s.duckdb").stdout
    assert "cost per session: USD unknown (a model has no price)" in text
    assert "per successful session: undefined (no successful session)" in text
    assert "by role: agent $0.00" in text and "judge tokens only" in text
    assert "no price for openai-compat:judge-m: tokens only" in text


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    """The real command line (its one-line error and exit status 2)."""
    command = [sys.executable, "-m", "sessionproof.cli", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def test_a_bad_price_file_stops_the_run_before_it_starts(tmp_path: Path) -> None:
    bad = tmp_path / "prices.toml"
    bad.write_text('[models."agent-m"]\ninput = 1\noutput = "lots"\n')
    store = tmp_path / "s.duckdb"
    result = _cli(
        "run", "--suite", "demo", "--model", "oracle", "--limit", "1",
        "--prices", str(bad), "--store", str(store), "--no-report",
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    said = result.stderr.strip()
    assert (
        said
        == f"error: {bad}, line 3: 'agent-m': output = 'lots' is not a number of USD per 1M tokens"
    )
    assert not store.exists()  # nothing ran, nothing was written
    flag = _cli("show", "any", "--metrics", "--price", "oracle=1", "--store", str(store))
    assert flag.returncode == 2
    assert "--price 'oracle=1': expected MODEL=IN/OUT" in flag.stderr
