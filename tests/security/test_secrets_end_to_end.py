"""End to end through the real CLI entry point: no configured secret, in any of its shapes,
reaches the store file, its tables, the Parquet export or anything the CLI prints."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from sessionproof._retrying import set_on_retry_hooks
from sessionproof.agents import AgentOptions
from sessionproof.agents._retry import RetryPolicy
from sessionproof.cli import main

from .keys import ALL_SECRETS, ENV, URL_PASSWORD, URL_QUERY_KEY, URL_USER, forms

# Rich wraps long lines and draws tables: a secret split by a line break or a border would
# slip past a plain substring search, so outputs are also searched with those removed.
_LAYOUT = re.compile(r"[\s\u2500-\u257f]+")

COMPAT_MODEL = (
    f"openai-compat:some-model@http://{URL_USER}:{URL_PASSWORD}@127.0.0.1:9/v1"
    f"?api_key={URL_QUERY_KEY}&mode=fast"
)
"""An unreachable loopback server (port 9, discard) behind a URL carrying credentials."""


@pytest.fixture
def cli(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Iterator[list[tuple[list[str], str]]]:
    """Runs `sessionproof ARGS` in-process through `main` (the console entry point, which
    installs the retry printer); yields the list of (args, stdout + stderr) it ran."""
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    outputs: list[tuple[list[str], str]] = []
    # No backoff and two attempts: the unreachable server fails in milliseconds, and the
    # one retry still prints its line on stderr.
    quick = RetryPolicy(attempts=2, wait_initial=0.0, wait_max=0.0, wait_jitter=0.0)
    monkeypatch.setattr(AgentOptions, "retry_policy", lambda self: quick)
    yield outputs
    set_on_retry_hooks(None)


def _invoke(
    outputs: list[tuple[list[str], str]],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    *args: str,
) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "argv", ["sessionproof", *args])
    code = 0
    try:
        main()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    captured = capsys.readouterr()
    outputs.append((list(args), captured.out + captured.err))
    return code, captured.out, captured.err


def _leaks(text: str) -> list[str]:
    squashed = _LAYOUT.sub("", text)
    return [
        form for secret in ALL_SECRETS for form in forms(secret) if form in text or form in squashed
    ]


@pytest.mark.slow
def test_no_secret_reaches_the_store_the_export_or_the_terminal(
    cli: list[tuple[list[str], str]],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    store = "tmp/x.duckdb"
    (tmp_path / "tmp").mkdir()

    def run(*args: str) -> tuple[int, str, str]:
        return _invoke(cli, capsys, monkeypatch, *args)

    code, out, err = run(
        "run", "--suite", "demo", "--model", "python:tests.security.agents:echo_agent",
        "--store", store,
    )  # fmt: skip
    assert code == 0, out + err
    code, out, err = run(
        "run", "--suite", "demo", "--limit", "2", "--model", COMPAT_MODEL, "--json",
        "--store", store,
    )  # fmt: skip
    assert code == 0, out + err
    assert json.loads(out)["infra_errors"] == 2  # the real URL was tried, and failed
    assert "retry 1" in err  # the retry line was printed (and is scanned below)

    code, out, _ = run("runs", "--json", "--store", store)
    assert code == 0
    run_ids = [r["run_id"] for r in json.loads(out)]
    assert len(run_ids) == 2
    run("runs", "--store", store)
    for run_id in run_ids:
        code, out, _ = run("show", run_id, "--json", "--store", store)
        assert code == 0
        run("show", run_id, "--store", store)
        run("show", run_id, "--metrics", "--store", store)
        run("show", run_id, "--metrics", "--json", "--store", store)
        with duckdb.connect(store, read_only=True) as conn:
            session_ids = [
                r[0]
                for r in conn.execute(
                    "SELECT session_id FROM sessions WHERE run_id = ? ORDER BY 1", [run_id]
                ).fetchall()
            ]
        for session_id in session_ids[:4]:
            code, _, err = run("show", run_id, "--session", session_id, "--store", store)
            assert code == 0, err
            run("show", run_id, "--session", session_id, "--json", "--store", store)
    code, _, err = run("export", "out", "--store", store)
    assert code == 0, err

    # Every column of every table, as the database reads it back (the file may compress).
    with duckdb.connect(store, read_only=True) as conn:
        tables = [r[0] for r in conn.execute("SELECT table_name FROM duckdb_tables()").fetchall()]
        dump = []
        for table in tables:
            cols = [
                r[0]
                for r in conn.execute(
                    "SELECT column_name FROM duckdb_columns() WHERE table_name = ?", [table]
                ).fetchall()
            ]
            for col in cols:
                rows = conn.execute(f'SELECT CAST("{col}" AS VARCHAR) FROM {table}').fetchall()
                dump += [str(r[0]) for r in rows]
        everything = "\n".join(dump)
        # The channels really were exercised: not a vacuous pass.
        kinds = {
            r[0]
            for r in conn.execute(
                "SELECT DISTINCT kind FROM events"
                " WHERE CAST(payload AS VARCHAR) LIKE '%[redacted]%'"
            ).fetchall()
        }
        details = conn.execute(
            "SELECT count(*) FROM sessions WHERE termination_detail LIKE '%[redacted]%'"
        ).fetchone()
    assert {"tool_call", "tool_result", "assistant_message", "agent_error"} <= kinds
    assert details is not None and details[0] > 0
    assert _leaks(everything) == []

    files = [tmp_path / store, *sorted((tmp_path / "out").glob("*.parquet"))]
    files += [p for p in (tmp_path / "tmp").glob("x.duckdb*") if p not in files]  # a WAL
    assert len(files) >= 3
    for path in files:
        raw = path.read_bytes()
        hits = [f for s in ALL_SECRETS for f in forms(s) if f.encode() in raw]
        assert hits == [], f"{path.name} holds {hits}"

    for args, text in cli:
        assert _leaks(text) == [], f"`sessionproof {' '.join(args)}` printed {_leaks(text)}"


@pytest.mark.slow
def test_a_run_whose_model_url_held_credentials_resumes_with_the_spec_given_again(
    cli: list[tuple[list[str], str]],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def run(*args: str) -> tuple[int, str, str]:
        return _invoke(cli, capsys, monkeypatch, *args)

    store = "x.duckdb"
    code, out, err = run(
        "run", "--suite", "demo", "--limit", "1", "--model", COMPAT_MODEL, "--json",
        "--store", store,
    )  # fmt: skip
    assert code == 0, err
    run_id = json.loads(out)["run_id"]
    # The stored spec lost its credentials, so it cannot be used as it is: a clear error.
    code, _, err = run("run", "--resume", run_id, "--store", store)
    assert code == 2 and "resume it with the same --model" in err
    code, out, err = run(
        "run", "--resume", run_id, "--model", COMPAT_MODEL, "--json", "--store", store
    )
    assert code == 0, err
    assert json.loads(out)["run_id"] == run_id
    for args, text in cli:
        assert _leaks(text) == [], f"`sessionproof {' '.join(args)}` printed {_leaks(text)}"
