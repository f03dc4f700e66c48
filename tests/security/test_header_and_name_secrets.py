"""`--otlp-header` values, the token after `Bearer` in OTEL_EXPORTER_OTLP_HEADERS and
credentials under home-made names (`MYCO_KEY`, `MYCO_AUTH`) never reach the store, `show`
or the collector in clear (issue 41.21 and 41.15)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from sessionproof._secrets import header_credentials, is_secret_env_name
from sessionproof.store._internal import REDACTED, scrub_argv

from ..telemetry.test_otlp_receiver import receiver
from .header_agent import (
    BASIC,
    BEARER,
    GITHUB_PAT,
    HONEYCOMB,
    LANGFUSE_SECRET,
    MYCO_AUTH,
    MYCO_KEY,
    SECRETS,
    VAULT_CREDENTIAL,
)

__all__ = ["receiver"]  # the loopback OTLP collector fixture
ROOT = Path(__file__).resolve().parents[2]


def _cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sessionproof.cli", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}", **env},
        timeout=180,
        check=False,
    )


@pytest.mark.slow
def test_header_and_home_made_secrets_stay_out_of_store_show_and_collector(
    tmp_path: Path, receiver: tuple[str, list[tuple[str, dict[str, str], bytes]]]
) -> None:
    url, received = receiver
    store = tmp_path / "s.duckdb"
    env = {
        "OTEL_EXPORTER_OTLP_HEADERS": f"Authorization=Bearer%20{BEARER}",
        "MYCO_KEY": MYCO_KEY,
        "MYCO_AUTH": MYCO_AUTH,
        "GITHUB_PAT": GITHUB_PAT,
        "VAULT_CREDENTIAL": VAULT_CREDENTIAL,
    }
    done = _cli(
        "run", "--suite", "demo", "--model", "python:tests.security.header_agent:echo",
        "--limit", "2", "--json", "--store", str(store), "--otel-content",
        "--otlp-endpoint", url,
        "--otlp-header", f"x-honeycomb-team={HONEYCOMB}",
        "--otlp-header", f"Authorization=Basic {BASIC}",
        env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    run_id = json.loads(done.stdout)["run_id"]
    shown = _cli("show", run_id, "--json", "--store", str(store), env=env)
    assert shown.returncode == 0, shown.stderr
    # The headers reach the collector as headers (that is their job), never in a body.
    assert any(h.get("x-honeycomb-team") == HONEYCOMB for _, h, _ in received)
    bodies = b"".join(body for _, _, body in received)
    raw = store.read_bytes()
    for secret in SECRETS:
        for where, text in (("store", raw), ("collector", bodies)):
            assert secret.encode() not in text, (secret, where)
        for where, out in (("run", done), ("show", shown)):
            assert secret not in out.stdout + out.stderr, (secret, where)
    argv = json.loads(shown.stdout)["manifest"]["argv"]
    assert f"x-honeycomb-team={REDACTED}" in argv
    assert f"Authorization={REDACTED}" in argv
    con = duckdb.connect(str(store), read_only=True)
    try:
        texts = [str(r[0]) for r in con.execute("select payload from events").fetchall()]
    finally:
        con.close()
    echoes = [t for t in texts if "keys: " in t]
    assert echoes and all(t.count(REDACTED) >= len(SECRETS) for t in echoes)


def test_header_arguments_are_redacted_in_argv_with_their_names_kept() -> None:
    argv = ["run", "--otlp-header", f"x-honeycomb-team={HONEYCOMB}",
            f"--otlp-header=Authorization=Basic {BASIC}", "--otlp-header", "x-plain"]  # fmt: skip
    scrubbed = scrub_argv(argv)
    assert scrubbed == [
        "run",
        "--otlp-header",
        f"x-honeycomb-team={REDACTED}",
        f"--otlp-header=Authorization={REDACTED}",
        "--otlp-header",
        REDACTED,
    ]


def test_the_credential_after_the_scheme_word_is_a_secret_too() -> None:
    assert header_credentials(f"Bearer {BEARER}") == [f"Bearer {BEARER}", BEARER]
    found = header_credentials(f"Basic {BASIC}")
    assert BASIC in found and LANGFUSE_SECRET in found
    assert header_credentials("not base64 at all") == ["not base64 at all"]


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("MYCO_KEY", True),
        ("MYCO_AUTH", True),
        ("GITHUB_PAT", True),
        ("VAULT_CREDENTIAL", True),
        ("SERVICE_CREDENTIALS_JSON", True),
        ("SLACK_BOT_TOKEN_V2", True),
        ("DB_PASS", True),
        ("SSH_PRIVATE_KEY_PEM", True),
        ("PWD", False),  # the shell's working directory
        ("MAX_NEW_TOKENS", False),
        ("TOKENIZERS_PARALLELISM", False),
        ("SERVICE_KEY_FILE", False),
        ("VAULT_TOKEN_PATH", False),
        ("KEYBOARD", False),
        ("PASSPORT_COUNTRY", False),
    ],
)
def test_widened_credential_names_and_the_names_left_alone(name: str, secret: bool) -> None:
    assert is_secret_env_name(name) is secret
