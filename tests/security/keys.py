"""Fake credentials of several shapes, built from parts at run time (no key-shaped literal).

Each is what a leak test looks for: the value itself and its upper-case form.
"""

from __future__ import annotations

import base64
import hashlib


def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


SK_STYLE = "sk-" + "proj-" + "Qw3" * 9 + "Zx"
"""An OpenAI-style key."""
HEX40 = hashlib.sha1(b"sessionproof fake key").hexdigest()
"""40 hex characters: no shape pattern recognises it."""
JWT_LIKE = ".".join(
    (
        _b64url(b'{"alg":"HS256","typ":"JWT"}'),
        _b64url(b'{"sub":"fake-user-7"}'),
        _b64url(b"sig" * 7),
    )
)
"""A dotted JWT-like token."""
SHORT_B64 = base64.b64encode(b"\x8a\x91Fq\xe2\x0f\xcc\x13\x07").decode()
"""A short-ish base64 token (12 characters)."""
META = "p(a)s.s*w+o?r[d]{9}|x^y$z\\" + "Q7" * 3
"""A password full of regex metacharacters."""
URL_USER = "svc" + "user" + "4242"
"""The user name of a model URL's userinfo."""
URL_PASSWORD = "pw" + "Lm9Kj8Hg7" + "Fd6"
"""The password of a model URL's userinfo."""
URL_QUERY_KEY = "qk" + "Rt5Yu6Io7Pa8"
"""A key passed as `?api_key=` in a model URL."""
OTEL_VALUE = "otel" + "Hd3Ws2Xe1Rc0"
"""A header value in OTEL_EXPORTER_OTLP_HEADERS."""

ENV = {
    "OPENAI_API_KEY": SK_STYLE,
    "SESSIONPROOF_API_KEY": HEX40,
    "HF_TOKEN": JWT_LIKE,
    "ANTHROPIC_API_KEY": SHORT_B64,
    "MY_SERVICE_PASSWORD": META,
    "OTEL_EXPORTER_OTLP_HEADERS": f"x-team={OTEL_VALUE},x-dataset=dev",
}
"""Environment variables a test sets: every value is a secret the scrubber must find."""

ENV_SECRETS = (SK_STYLE, HEX40, JWT_LIKE, SHORT_B64, META, OTEL_VALUE)
"""The secret values ENV carries."""
URL_SECRETS = (URL_USER, URL_PASSWORD, URL_QUERY_KEY)
"""The secrets a model URL carries."""
ALL_SECRETS = ENV_SECRETS + URL_SECRETS
"""Every fake secret."""


def forms(secret: str) -> tuple[str, str]:
    """What must never appear: the secret and its upper-case form."""
    return secret, secret.upper()
