"""The value-based scrubber: whatever a configured secret looks like, it is redacted by value."""

from __future__ import annotations

import base64
import json
from urllib.parse import quote

import pytest

from sessionproof._secrets import is_secret_env_name, register_secret, secret_values
from sessionproof.store import RunManifest
from sessionproof.store._internal import REDACTED, scrub_argv, scrub_text, scrub_value

from .keys import ENV, ENV_SECRETS, HEX40, META, OTEL_VALUE, SHORT_B64, SK_STYLE, forms


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)


def _clean(text: str) -> bool:
    return not any(form in text for secret in ENV_SECRETS for form in forms(secret))


@pytest.mark.usefixtures("env")
@pytest.mark.parametrize("secret", ENV_SECRETS)
def test_each_secret_is_redacted_in_every_simple_shape(secret: str) -> None:
    shapes = [
        secret,
        f"glued{secret}word",
        secret.upper(),
        secret.lower(),
        secret.swapcase(),
        base64.b64encode(secret.encode()).decode(),
        base64.urlsafe_b64encode(secret.encode()).decode().rstrip("="),
        quote(secret, safe=""),
        json.dumps({"k": secret}),
        secret[::-1],
    ]
    for shape in shapes:
        scrubbed = scrub_text(f"before {shape} after")
        assert REDACTED in scrubbed, shape
        assert scrubbed.startswith("before ") and scrubbed.endswith(" after"), scrubbed
        assert _clean(scrubbed) and shape not in scrubbed, scrubbed
        assert scrub_text(scrubbed) == scrubbed  # idempotent


@pytest.mark.usefixtures("env")
def test_a_secret_inside_a_larger_base64_blob_is_redacted() -> None:
    # HTTP Basic auth: base64 of "user:secret"; the secret starts at any offset mod 3.
    for user in ("u", "us", "usr"):
        blob = base64.b64encode(f"{user}:{HEX40}".encode()).decode()
        scrubbed = scrub_text(f"Authorization: Basic {blob}")
        assert REDACTED in scrubbed
        decoded_tail = scrubbed.split()[-1]
        assert blob not in scrubbed and decoded_tail != blob


@pytest.mark.usefixtures("env")
def test_dict_keys_are_scrubbed_and_distinct_keys_stay_distinct() -> None:
    value = {
        HEX40: "one",
        f"x{HEX40}": "two",
        "nested": [{SK_STYLE.upper(): {META: 3}}],
        "plain": "kept",
        7: "int key",
    }
    scrubbed = scrub_value(value)
    dumped = json.dumps(scrubbed)
    assert _clean(dumped)
    assert sorted(v for v in scrubbed.values() if isinstance(v, str)) == [
        "int key",
        "kept",
        "one",
        "two",
    ]  # nothing lost when two keys redact to the same text
    assert scrubbed["plain"] == "kept" and scrubbed[7] == "int key"
    assert value[HEX40] == "one"  # the caller's value is untouched


@pytest.mark.usefixtures("env")
def test_regex_metacharacters_are_matched_literally() -> None:
    assert META in ENV.values()
    text = f"pw={META}; pattern-ish p(a)s.s*w and a lone {META[:5]}"
    scrubbed = scrub_text(text)
    assert META not in scrubbed and META.upper() not in scrubbed
    assert scrubbed.endswith(f"p(a)s.s*w and a lone {META[:5]}")  # only the whole value goes


def test_short_and_ordinary_values_are_not_redacted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEBUG_PASSWORD", "true")
    monkeypatch.setenv("SOME_API_KEY", "1")
    monkeypatch.setenv("TINY_TOKEN", "abc1234")  # 7 characters: below the minimum
    monkeypatch.setenv("PROJECT_NAME", "sessionproof-project")  # not a credential name
    text = "verbose true, 1 retry, code abc1234 for sessionproof-project"
    assert scrub_text(text) == text
    assert {"true", "1", "abc1234", "sessionproof-project"}.isdisjoint(secret_values())


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("OPENAI_API_KEY", True),
        ("SESSIONPROOF_API_KEY", True),
        ("HF_TOKEN", True),
        ("GITHUB_TOKEN", True),
        ("AWS_SECRET_ACCESS_KEY", True),
        ("DB_PASSWORD", True),
        ("CLIENT_SECRET_VALUE", True),
        ("MISTRAL_KEY", True),
        ("GEMINI_API_KEY", True),
        ("HOME", False),
        ("PATH", False),
        ("MAX_TOKENS", False),
        ("TOKENIZERS_PARALLELISM", False),
        ("SSH_AUTH_SOCK", False),
        ("PYTHON_KEY_FILE_NAME", False),
    ],
)
def test_credential_variable_names(name: str, secret: bool) -> None:
    assert is_secret_env_name(name) is secret


@pytest.mark.usefixtures("env")
def test_otel_header_values_are_secrets() -> None:
    assert OTEL_VALUE in secret_values()
    assert "dev" not in secret_values()  # x-dataset=dev: too short to be a secret
    assert OTEL_VALUE not in scrub_text(f"sent x-team={OTEL_VALUE}")


def test_registered_secrets_and_a_changed_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    value = "registered" + HEX40[:10]
    assert scrub_text(f"a {value} b") == f"a {value} b"
    register_secret(value)
    register_secret("short")  # ignored: would redact ordinary words
    register_secret(None)
    assert scrub_text(f"a {value} b") == f"a {REDACTED} b"
    assert scrub_text("a short b") == "a short b"
    # The environment is read again when it changes: no restart needed.
    monkeypatch.setenv("SESSIONPROOF_API_KEY", SHORT_B64 + "later")
    assert scrub_text(f"x {SHORT_B64}later") == f"x {REDACTED}"
    monkeypatch.setenv("SESSIONPROOF_API_KEY", "other" + HEX40[:12])
    assert SHORT_B64 + "later" not in secret_values()


@pytest.mark.usefixtures("env")
def test_manifest_fields_and_argv_are_scrubbed_by_value() -> None:
    m = RunManifest(
        suite=f"suite-{HEX40}",
        model=f"python:agents:{HEX40}",
        user_model=SK_STYLE.upper(),
        arms=[f"faults={META}"],
        scenario_ids=[f"s-{SHORT_B64}"],
        argv=["run", "--model", f"x{HEX40}", f"--label={META}"],
        options={HEX40: {"v": OTEL_VALUE}},
    )
    assert _clean(m.model_dump_json())
    assert _clean(" ".join(scrub_argv([f"--thing={HEX40}", HEX40.upper()])))


def test_url_userinfo_and_secret_query_params_are_redacted_by_shape() -> None:
    user, password, key = "u" + "ser7x", "pw" + "Zx8Cv7Bn6", "k" + "Mn5Bv4Cx3"
    text = f"see http://{user}:{password}@host:8080/v1?api_key={key}&token={key}&n=2 ok"
    scrubbed = scrub_text(text)
    assert password not in scrubbed and key not in scrubbed and user not in scrubbed
    assert scrubbed.startswith("see http://") and "@host:8080/v1?" in scrubbed
    assert scrubbed.endswith("&n=2 ok")
