"""Secret scrubbing: nothing that looks like a credential reaches the store.

The patterns are deliberately eager. A false positive costs a few characters of a trace; a
false negative leaks a key into a file that gets shared, exported and attached to reports.
"""

from __future__ import annotations

import re
from typing import Any

REDACTED = "[redacted]"
"""What a secret is replaced with."""

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

_PATTERN = re.compile(f"{_BEARER}|{_LABELLED}|{_BARE}")

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
    "key",
    "secret",
    "passw",
    "token",
)

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


def _replace(match: re.Match[str]) -> str:
    if match.group("bearer") is not None:
        return match.group("bearer") + REDACTED
    if match.group("label") is not None:
        return match.group("label") + match.group("sep") + REDACTED
    return REDACTED


def scrub_text(text: str) -> str:
    """`text` with every credential-shaped substring replaced by `[redacted]`."""
    lowered = text.lower()
    if not any(marker in lowered for marker in _MARKERS):
        return text
    return _PATTERN.sub(_replace, text)


def is_secret_key(key: str) -> bool:
    """True when a mapping key names a credential (`api_key`, `Authorization`, `token`...)."""
    norm = key.lower().replace("-", "_")
    return norm == "token" or norm.endswith(_SECRET_KEY_SUFFIXES)


def scrub_value(value: Any) -> Any:
    """A copy of a JSON-like value with secrets redacted in every string, at any depth.

    Under a credential-named key a string is redacted whole; other types there (a flag, a
    count) are kept, since they cannot carry a key.
    """
    if isinstance(value, str):
        return scrub_text(value)
    if isinstance(value, dict):
        out: dict[Any, Any] = {}
        for key, item in value.items():
            if isinstance(item, str) and item and isinstance(key, str) and is_secret_key(key):
                out[key] = REDACTED
            else:
                out[key] = scrub_value(item)
        return out
    if isinstance(value, list | tuple):
        return [scrub_value(item) for item in value]
    return value


def scrub_argv(argv: list[str]) -> list[str]:
    """A command line with secrets redacted, including the value after `--api-key`-like flags."""
    out: list[str] = []
    redact_next = False
    for arg in argv:
        if redact_next:
            out.append(REDACTED)
            redact_next = False
            continue
        flag, eq, _ = arg.partition("=")
        if eq and _SECRET_FLAG.match(flag):
            out.append(f"{flag}={REDACTED}")
            continue
        out.append(scrub_text(arg))
        redact_next = _SECRET_FLAG.match(arg) is not None
    return out
