"""Secret scrubbing: nothing that looks like a credential, or is one, reaches the store.

Two nets. Shape patterns catch keys that look like keys (`sk-...`, `Bearer ...`,
`api_key=...`, `user:password@` in a URL) even when nobody configured them; the value net
(`sessionproof._secrets`) catches every configured credential, whatever it looks like, in
any case and in simple encodings. The patterns are deliberately eager: a false positive costs
a few characters of a trace; a false negative leaks a key into a file that gets shared,
exported and attached to reports.
"""

from __future__ import annotations

import re
from typing import Any

from .._secrets import REDACTED as REDACTED
from .._secrets import SecretMatcher, current_matcher

# Bare tokens recognisable by their shape alone. The look-behinds stop `task-...` or
# `risk-...` from reading as an `sk-` key.
_BARE = (
    r"(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{8,}"
    r"|(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{8,}"
    r"|(?<![A-Za-z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Z])"
    r"|(?<![A-Za-z0-9_])(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}"
    r"|(?<![A-Za-z0-9_])github_pat_[A-Za-z0-9_]{20,}"
    r"|(?<![A-Za-z0-9_])hf_[A-Za-z0-9]{20,}"
    r"|(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{30,}"
)

# Labelled secrets keep their label so a reader still sees that a credential was there.
_BEARER = r"(?P<bearer>\b(?i:bearer)\s+)[A-Za-z0-9._~+/=-]{8,}"
_LABELLED = (
    r"(?<![\w-])(?P<label>(?i:[\w-]*(?:api[_-]?key|secret|passw(?:or)?d"
    r"|access[_-]?token|auth[_-]?token|refresh[_-]?token|session[_-]?token)))"
    r"(?P<sep>[\"']?\s*[=:]\s*[\"']?)"
    r"(?!\[redacted\])(?P<value>[^\s\"'&,;)\]}\\]+)"
)

# `scheme://user:password@host` (or a bare `key@host`): the userinfo goes, the rest of the
# URL stays readable.
_USERINFO = r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*://)(?!\[redacted\]@)[^\s/@\"'<>]+@"
# `?token=...&sig=...`: query parameters named like a credential, whatever their value.
_QUERY = (
    r"(?P<qlabel>[?&](?i:[\w.-]*(?:key|token|secret|passw(?:or)?d|sig|signature|auth"
    r"|credentials?))=)(?!\[redacted\])[^&#\s\"'<>]+"
)

_PATTERN = re.compile(f"{_USERINFO}|{_QUERY}|{_BEARER}|{_LABELLED}|{_BARE}")

# Every pattern above needs one of these (lower-cased) substrings. Substring tests run at
# memchr speed, so a 200 kB tool output without any of them skips the regex entirely.
_MARKERS = (
    "sk-",
    "akia",
    "asia",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "hf_",
    "aiza",
    "bearer",
    # Not a bare "key": product names ("Mechanical Keyboard") would send most retail
    # payloads through the regex. Every pattern naming a key spells one of these.
    "api_key",
    "api-key",
    "apikey",
    "key=",
    "secret",
    "passw",
    "token",
    "://",
    # A query label ends in its keyword and is followed by "=" (the rest contain "key"...).
    "sig=",
    "signature=",
    "auth=",
    "credential=",
    "credentials=",
)
# A credential-named mapping key whose name holds none of the markers above.
_KEY_MARKERS = (*_MARKERS, "authorization")
# Our own usage fields, in every model call's payload: each spells "token", so every model
# call went through value-by-value scrubbing for nothing. No pattern can match through
# them (a labelled token must be access/auth/refresh/session_token and end at "token") and
# `is_secret_key` is false of them, so `might_hold` skips them; cutting them out of a text
# can join its two sides into a marker, never hide one.
_HARMLESS = ('"input_tokens"', '"output_tokens"', '"cached_tokens"')


def marker_substrings() -> tuple[str, ...]:
    """The lower-case substrings `Scrubber.might_hold` looks for (besides secret values):
    one of them is in every text a shape pattern or a credential-named key could match."""
    return _KEY_MARKERS


# Dictionary keys whose string value is a credential whatever it looks like.
_SECRET_KEY_SUFFIXES = (
    "api_key",
    "apikey",
    "authorization",
    "password",
    "passwd",
    "secret",
    "secret_key",
    "access_token",
    "auth_token",
    "refresh_token",
    "session_token",
)

# argv flags whose following element is the credential (`--api-key VALUE`).
_SECRET_FLAG = re.compile(
    r"^--?[\w-]*(?:api[_-]?key|token|secret|passw(?:or)?d|authorization)$", re.IGNORECASE
)


# argv flags whose following element is an HTTP header `K=V` (`--otlp-header`): its value is
# a credential as often as not (`Authorization=Basic ...`, `x-honeycomb-team=KEY`).
_HEADER_FLAG = re.compile(r"^--?[\w-]*headers?$", re.IGNORECASE)


def _header_arg(item: str) -> str:
    """`K=V` with the value redacted (the header's name kept)."""
    name, eq, _ = item.partition("=")
    return f"{name}={REDACTED}" if eq else REDACTED


def _replace(match: re.Match[str]) -> str:
    if match.group("scheme") is not None:
        return match.group("scheme") + REDACTED + "@"
    if match.group("qlabel") is not None:
        return match.group("qlabel") + REDACTED
    if match.group("bearer") is not None:
        return match.group("bearer") + REDACTED
    if match.group("label") is not None:
        return match.group("label") + match.group("sep") + REDACTED
    return REDACTED


def is_secret_key(key: str) -> bool:
    """True when a mapping key names a credential (`api_key`, `Authorization`, `token`...)."""
    norm = key.lower().replace("-", "_")
    return norm == "token" or norm.endswith(_SECRET_KEY_SUFFIXES)


class Scrubber:
    """Redacts secrets by shape and by value.

    An instance holds the secrets known when it was made: make one per unit of work (a
    session, a manifest) so the known secrets are looked up once, not once per string.
    """

    def __init__(self, values: SecretMatcher | None = None) -> None:
        """Scrub with `values` (default: every secret known now)."""
        self._values = current_matcher() if values is None else values

    @property
    def needles(self) -> tuple[str, ...]:
        """The lower-cased secret forms `might_hold` looks for (empty with no secret)."""
        return self._values.needles

    def might_hold(self, text: str) -> bool:
        """False only when `text` certainly holds nothing to redact (no secret value and
        none of the substrings every shape pattern and secret key name needs): a cheap
        test of a whole serialised payload before scrubbing it piece by piece."""
        lowered = text.lower()
        if self._values.present(lowered):
            return True
        if '_tokens"' in lowered:
            for name in _HARMLESS:
                lowered = lowered.replace(name, "")
        return any(map(lowered.__contains__, _KEY_MARKERS))

    def text(self, text: str) -> str:
        """`text` with every secret value and credential-shaped substring redacted."""
        lowered = text.lower()
        if self._values.present(lowered):
            text = self._values.redact(text, lowered)
            lowered = text.lower()
        # map() over a bound method: no Python frame per marker, twice as fast as a genexpr.
        if not any(map(lowered.__contains__, _MARKERS)):
            return text
        return _PATTERN.sub(_replace, text)

    def value(self, value: Any) -> Any:
        """A copy of a JSON-like value with secrets redacted in every string and every
        mapping key, at any depth.

        Under a credential-named key a string is redacted whole; other types there (a flag, a
        count) are kept, since they cannot carry a key. Two keys that scrub to the same text
        are both kept, the second with a ` #2` suffix.
        """
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            out: dict[Any, Any] = {}
            for key, item in value.items():
                secret_key = isinstance(key, str) and is_secret_key(key)
                new_key = self.text(key) if isinstance(key, str) else key
                if new_key in out:
                    n = 2
                    while f"{new_key} #{n}" in out:
                        n += 1
                    new_key = f"{new_key} #{n}"
                if isinstance(item, str) and item and secret_key:
                    out[new_key] = REDACTED
                else:
                    out[new_key] = self.value(item)
            return out
        if isinstance(value, list | tuple):
            return [self.value(item) for item in value]
        return value

    def argv(self, argv: list[str]) -> list[str]:
        """A command line with secrets redacted, including the value after `--api-key`-like
        flags and the value of every `--otlp-header`-like `K=V` (its name kept)."""
        out: list[str] = []
        redact_next = header_next = False
        for arg in argv:
            if redact_next:
                out.append(REDACTED)
                redact_next = False
                continue
            if header_next:
                out.append(self.text(_header_arg(arg)))
                header_next = False
                continue
            flag, eq, rest = arg.partition("=")
            if eq and _SECRET_FLAG.match(flag):
                out.append(f"{flag}={REDACTED}")
                continue
            if eq and _HEADER_FLAG.match(flag):
                out.append(f"{flag}={self.text(_header_arg(rest))}")
                continue
            out.append(self.text(arg))
            redact_next = _SECRET_FLAG.match(arg) is not None
            header_next = _HEADER_FLAG.match(arg) is not None
        return out


def scrub_text(text: str) -> str:
    """`text` with every known secret value and credential-shaped substring redacted."""
    return Scrubber().text(text)


def scrub_value(value: Any) -> Any:
    """A copy of a JSON-like value with secrets redacted in every string and key (see
    `Scrubber.value`)."""
    return Scrubber().value(value)


def scrub_argv(argv: list[str]) -> list[str]:
    """A command line with secrets redacted, including the value after `--api-key`-like flags."""
    return Scrubber().argv(argv)
