"""No credential reaches the store: not in events, metadata, details, manifests or argv."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from sessionproof.records import (
    CriterionResult,
    Outcome,
    ToolCallEvent,
    ToolResultEvent,
    UserMessageEvent,
)
from sessionproof.store import RunManifest, Store
from sessionproof.store._internal import REDACTED, scrub_argv, scrub_text, scrub_value

from .factory import manifest, session

# Built from parts so no scanner mistakes these fixtures for real keys.
OPENAI = "sk-" + "proj-" + "Q3xv9TzLm2Pq8Rw4Ys7UaBcDeFgH"
ANTHROPIC = "sk-ant-" + "api03-Zz9Yy8Xx7Ww6Vv5Uu4-Tt3Ss2"
AWS = "AKIA" + "IOSFODNN7EXAMPLE"
JWT = "eyJ" + "hbGciOiJIUzI1NiJ9." + "eyJ" + "zdWIiOiIxIn0.c2lnbmF0dXJl"
PLAIN = "hunter2-plain-value"
SECRETS = (OPENAI, ANTHROPIC, AWS, JWT, PLAIN)


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        (f"key is {OPENAI}.", "key is "),
        (f"use {ANTHROPIC}", "use "),
        (f"creds {AWS} here", "creds "),
        (f"Authorization: Bearer {JWT}", "Authorization: Bearer "),
        (f"OPENAI_API_KEY={OPENAI}", "OPENAI_API_KEY="),
        (f"https://x.test/v1?api_key={PLAIN}&q=1", "https://x.test/v1?api_key="),
        (f'{{"password": "{PLAIN}"}}', '{"password": "'),
    ],
)
def test_secret_shapes_are_redacted(text: str, kept: str) -> None:
    scrubbed = scrub_text(text)
    assert REDACTED in scrubbed
    assert scrubbed.startswith(kept)
    assert not any(secret in scrubbed for secret in SECRETS)
    assert scrub_text(scrubbed) == scrubbed  # idempotent


@pytest.mark.parametrize(
    "text",
    [
        "task-0123456789abcdef and risk-assessment-2024",
        "max_tokens=100 input_tokens: 5 token_count=3",
        "order 1042 shipped; ask for the SKU-12345678 label",
        "",
    ],
)
def test_ordinary_text_is_kept(text: str) -> None:
    assert scrub_text(text) == text


def test_nested_values_and_secret_named_keys() -> None:
    value = {
        "headers": {"Authorization": f"Basic {PLAIN}", "x-api-key": PLAIN, "Accept": "json"},
        "items": [OPENAI, ("ok", AWS)],
        "token": PLAIN,
        "password": 1234,  # not a string: kept, it cannot hold a key
        "input_tokens": 7,
    }
    scrubbed = scrub_value(value)
    assert scrubbed["headers"] == {
        "Authorization": REDACTED,
        "x-api-key": REDACTED,
        "Accept": "json",
    }
    assert scrubbed["items"] == [REDACTED, ["ok", REDACTED]]
    assert scrubbed["token"] == REDACTED
    assert (scrubbed["password"], scrubbed["input_tokens"]) == (1234, 7)
    assert value["token"] == PLAIN  # the caller's value is not mutated


def test_argv_values_after_secret_flags() -> None:
    argv = [
        "run",
        "--api-key",
        PLAIN,
        f"--token={PLAIN}",
        "--model",
        f"openai:gpt?key={OPENAI}",
        "--seed",
        "3",
    ]
    scrubbed = scrub_argv(argv)
    assert scrubbed[:4] == ["run", "--api-key", REDACTED, f"--token={REDACTED}"]
    assert scrubbed[-2:] == ["--seed", "3"]
    assert not any(secret in " ".join(scrubbed) for secret in SECRETS)


def test_manifest_is_scrubbed_when_built() -> None:
    m = RunManifest(
        model=f"openai:gpt-4o?api_key={PLAIN}",
        user_model=f"anthropic:claude {ANTHROPIC}",
        argv=["sessionproof", "run", "--api-key", OPENAI],
        options={"base_url": "http://x", "headers": {"Authorization": f"Bearer {JWT}"}, "n": 2},
    )
    dumped = m.model_dump_json()
    assert not any(secret in dumped for secret in SECRETS)
    assert m.model.startswith("openai:gpt-4o?api_key=") and m.options["n"] == 2


def test_nothing_secret_is_written_to_the_store(store: Store, store_path: Path) -> None:
    store.create_run(
        manifest("r1", ["a"], argv=["run", "--api-key", PLAIN], options={"api_key": PLAIN})
    )
    leaky = session("r1", "a")
    events = [e.model_copy(deep=True) for e in leaky.events]
    for event in events:
        if isinstance(event, ToolResultEvent):
            event.payload.output = f"upstream said: Authorization: Bearer {JWT}"
        if isinstance(event, UserMessageEvent):
            event.payload.content = f"my key is {OPENAI}, and AWS {AWS}"
        if isinstance(event, ToolCallEvent):
            # Payloads are typed: free-form JSON lives in tool-call arguments.
            event.payload.arguments = {"api_key": PLAIN, "nested": [ANTHROPIC]}
    outcome = Outcome(
        success=False,
        reward=0.0,
        criteria=[
            CriterionResult(name="communicate", passed=False, evidence=f"agent echoed {OPENAI}")
        ],
    )
    leaky = leaky.model_copy(
        update={
            "events": events,
            "metadata": {"env": {"OPENAI_API_KEY": OPENAI}, "note": f"password={PLAIN}"},
            "termination_detail": f"401 for key {ANTHROPIC}",
            "model": f"openai:gpt-4o?api_key={PLAIN}",
            "outcome": outcome,
        }
    )
    store.write_session(leaky)
    [loaded] = store.load_sessions("r1")
    assert REDACTED in loaded.termination_detail and REDACTED in loaded.model
    assert loaded.metadata["env"]["OPENAI_API_KEY"] == REDACTED
    assert [e.seq for e in loaded.events] == [e.seq for e in leaky.events]
    store.close()
    # Every text column of every table, as DuckDB sees it.
    with duckdb.connect(str(store_path), read_only=True) as conn:
        for table in ("runs", "sessions", "events"):
            dump = "\n".join(str(row) for row in conn.execute(f"SELECT * FROM {table}").fetchall())
            assert REDACTED in dump
            leaked = [secret for secret in SECRETS if secret in dump]
            assert leaked == [], f"{table} holds {leaked}"


def test_configured_keys_are_redacted_by_value_in_every_column(
    store: Store, store_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A key no shape pattern knows (40 hex characters), configured in the environment.
    key = "".join(f"{i * 7 % 16:x}" for i in range(40))
    monkeypatch.setenv("SESSIONPROOF_API_KEY", key)
    assert scrub_text(f"x{key.upper()}y") == f"x{REDACTED}y"
    store.create_run(manifest("r1", ["a"], argv=["run", "--label", key], options={key: key}))
    leaky = session("r1", "a")
    events = [e.model_copy(deep=True) for e in leaky.events]
    for event in events:
        if isinstance(event, ToolCallEvent):
            event.payload.arguments = {f"k-{key}": {key.upper(): [f"glued{key}word"]}}
    leaky = leaky.model_copy(
        update={
            "events": events,
            "metadata": {key: {"note": key}},
            "termination_detail": f"agent raised RuntimeError: {key}",
            "model": f"python:agents:{key}",
            "arm": f"arm-{key}",
        }
    )
    store.write_session(leaky)
    store.export_parquet(store_path.parent / "out")
    store.close()
    with duckdb.connect(str(store_path), read_only=True) as conn:
        for table in ("runs", "sessions", "events"):
            dump = "\n".join(str(row) for row in conn.execute(f"SELECT * FROM {table}").fetchall())
            assert REDACTED in dump
            assert key not in dump.lower(), table
    for path in [store_path, *(store_path.parent / "out").glob("*.parquet")]:
        assert key.encode() not in path.read_bytes().lower(), path
