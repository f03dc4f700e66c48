"""Credentials in a model URL: used for the request, never shown or stored, and redacted by
value everywhere once the spec has been read."""

from __future__ import annotations

import sys

import pytest

from sessionproof._retrying import RetryDetails
from sessionproof._secrets import redact_url, secret_values
from sessionproof.agents._retry import redact
from sessionproof.agents._spec import display_spec, make_agent
from sessionproof.cli import main
from sessionproof.cli._app import _on_retry
from sessionproof.errors import ModelSpecError
from sessionproof.store import RunManifest
from sessionproof.store._internal import REDACTED, scrub_text

from .keys import HEX40, URL_PASSWORD, URL_QUERY_KEY, URL_USER

URL = f"http://{URL_USER}:{URL_PASSWORD}@127.0.0.1:9/v1?api_key={URL_QUERY_KEY}&mode=fast"
SPEC = f"openai-compat:m@{URL}"
URL_SECRETS = (URL_USER, URL_PASSWORD, URL_QUERY_KEY)


def _clean(text: str) -> bool:
    return not any(s in text or s.upper() in text for s in URL_SECRETS)


def test_redact_url_keeps_what_is_not_secret() -> None:
    shown = redact_url(URL)
    assert _clean(shown)
    assert shown == f"http://{REDACTED}@127.0.0.1:9/v1?api_key={REDACTED}&mode=fast"
    assert redact_url("http://127.0.0.1:9/v1?mode=fast") == "http://127.0.0.1:9/v1?mode=fast"


def test_display_spec_hides_url_credentials() -> None:
    assert _clean(display_spec(SPEC))
    assert display_spec(SPEC).startswith("openai-compat:m@http://")
    assert display_spec("python:pkg.mod:fn") == "python:pkg.mod:fn"


def test_reading_the_spec_registers_its_credentials_and_keeps_the_real_url() -> None:
    agent = make_agent(SPEC, max_attempts=1)
    assert _clean(agent.name)
    assert getattr(agent, "base_url", None) == URL  # the request still goes to the real URL
    assert set(URL_SECRETS) <= secret_values()
    # Now redacted by value, wherever they turn up.
    text = f"x{URL_PASSWORD.upper()}y {URL_QUERY_KEY} {URL_USER}"
    assert _clean(scrub_text(text)) and _clean(redact(text))
    assert _clean(RunManifest(model=SPEC, argv=["run", "--model", SPEC]).model_dump_json())


def test_keys_read_from_the_environment_are_registered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SESSIONPROOF_API_KEY", HEX40)
    make_agent("openai-compat:m@http://127.0.0.1:9/v1", max_attempts=1)
    monkeypatch.delenv("SESSIONPROOF_API_KEY")
    # Gone from the environment, still known: the agent holds it and may echo it.
    assert HEX40 in secret_values()


def test_a_bad_spec_error_does_not_print_the_password() -> None:
    with pytest.raises(ModelSpecError) as caught:
        make_agent(f"openai-compat:m@http://{URL_USER}:{URL_PASSWORD}@:0/v1")
    assert _clean(str(caught.value))


def test_the_error_line_and_the_retry_line_are_scrubbed_by_value(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SESSIONPROOF_API_KEY", HEX40)
    _on_retry(RetryDetails(1, 0.5, 0.0, RuntimeError(f"upstream echoed {HEX40}")))
    monkeypatch.setattr(sys, "argv", ["sessionproof", "run", "--suite", f"no-such-{HEX40}"])
    with pytest.raises(SystemExit):
        main()
    err = capsys.readouterr().err
    assert "retry 1" in err and "error:" in err and REDACTED in err
    assert HEX40 not in err and HEX40.upper() not in err
