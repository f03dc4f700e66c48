"""Which values are secrets: credentials read from the environment, plus any registered.

Shape patterns (`sk-...`, `Bearer ...`) catch keys that look like keys; this module catches
the rest by value. A key of any format that sessionproof could read (a `*_API_KEY`, a
`*_TOKEN`, the password of a model URL...) is known here, and `SecretMatcher` redacts it,
and simple encodings of it, wherever it turns up: glued to words, upper-cased, base64- or
URL-encoded, JSON-escaped, reversed.

Deliberately light (standard library only): agents, the store and the CLI all use it, and
importing it must not load DuckDB or a provider SDK.
"""

from __future__ import annotations

import base64
import json
import os
import re
import threading
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, quote, quote_plus, unquote

REDACTED = "[redacted]"
"""What a secret is replaced with."""

MIN_SECRET_LENGTH = 8
"""Shorter values are never treated as secrets: `1`, `true` or `debug` would otherwise be
redacted from every trace."""

# Providers whose keys may be named `<PROVIDER>_KEY` or `<PROVIDER>_..._KEY`.
_PROVIDERS = (
    "ANTHROPIC|AZURE_OPENAI|CEREBRAS|COHERE|DEEPSEEK|FIREWORKS|GEMINI|GOOGLE|GROQ|HF"
    "|HUGGINGFACE|HUGGING_FACE|MISTRAL|OPENAI|OPENROUTER|PERPLEXITY|REPLICATE|SESSIONPROOF"
    "|TOGETHER|VOYAGE|XAI"
)
_SECRET_NAME = re.compile(
    r"(?:^|_)(?:API_?KEY|ACCESS_?KEY|KEY|KEYS|AUTH|PAT)$|_(?:PASS|PWD)$"
    r"|TOKEN|SECRET|PASSW(?:OR)?D|CREDENTIAL|PRIVATE_?KEY"
    rf"|^(?:{_PROVIDERS})_(?:\w+_)?KEY$",
    re.IGNORECASE,
)
# Names the patterns above would take that hold no credential: token counts and tokenizer
# settings (`MAX_TOKENS`, `TOKENIZERS_PARALLELISM`), and where a credential lives rather than
# the credential itself (`*_KEY_FILE`, `*_TOKEN_PATH`, `*_CREDENTIALS_DIR`, `SSH_AUTH_SOCK`).
_NOT_SECRET_NAME = re.compile(
    r"TOKENS(?:$|_)|TOKENIZER|_(?:FILE|PATH|DIR|SOCK|TYPE|URL|ENDPOINT)$", re.IGNORECASE
)
# OTLP exporters take credentials as `name=value,name=value` header lists.
_HEADERS_NAME = re.compile(r"^OTEL_EXPORTER_OTLP_(?:\w+_)?HEADERS$", re.IGNORECASE)
# Query parameters of a URL whose value is a credential.
_SECRET_PARAM = re.compile(
    r"key|token|secret|passw(?:or)?d|sig(?:nature)?$|auth|credential", re.IGNORECASE
)

_REGISTERED: set[str] = set()
# Held while the registry is added to or copied: agents may register from worker threads.
_LOCK = threading.Lock()
# (the environment it was read from, the secret values in it); see `_env_secrets`.
_env_cache: tuple[dict[Any, Any] | None, frozenset[str]] = (None, frozenset())


def is_secret_env_name(name: str) -> bool:
    """True when an environment variable's name says it holds a credential: `*_KEY`
    (`*_API_KEY`, `*_ACCESS_KEY`), `*_AUTH`, `*_PAT`, `*_PASS`, `*_PWD` (not the shell's
    `PWD`), `*TOKEN*`,
    `*SECRET*`, `*PASSWORD*`, `*CREDENTIAL*`, `*PRIVATE_KEY*` — except names of token counts
    and tokenizer settings (`MAX_TOKENS`, `TOKENIZERS_*`) and of where a credential is kept
    (`*_FILE`, `*_PATH`, `*_DIR`, `*_SOCK`, `*_TYPE`, `*_URL`, `*_ENDPOINT`)."""
    return _SECRET_NAME.search(name) is not None and _NOT_SECRET_NAME.search(name) is None


def register_secret(value: str | None) -> None:
    """Make `value` a secret: from now on it is redacted, by value, from everything stored,
    exported or printed. Agents call this for every key they read; values shorter than
    `MIN_SECRET_LENGTH` are ignored."""
    if value is None:
        return
    value = value.strip()
    if len(value) >= MIN_SECRET_LENGTH and value not in REDACTED:
        with _LOCK:
            _REGISTERED.add(value)


def header_credentials(value: str) -> list[str]:
    """The secrets an HTTP header value carries: the value itself; after an authorization
    scheme word (`Bearer T`, `Basic B64`, `Token T`, `ApiKey T`...) the bare credential too;
    and for `Basic` its decoded `user:password` and the password."""
    value = value.strip()
    found = [value]
    scheme, space, credential = value.partition(" ")
    credential = credential.strip()
    if not space or not credential or " " in credential or not scheme.replace("-", "").isalnum():
        return found
    found.append(credential)
    if scheme.lower() == "basic":
        try:
            decoded = base64.b64decode(credential, validate=True).decode("utf-8")
        except ValueError:  # not base64, or not text (UnicodeDecodeError is a ValueError)
            return found
        found.append(decoded)
        _, colon, password = decoded.partition(":")
        if colon and password:
            found.append(password)
    return found


def register_header_secret(value: str) -> None:
    """Register an HTTP header's value as a secret (`--otlp-header K=V`): the value and the
    credentials inside it (see `header_credentials`)."""
    for credential in header_credentials(value):
        register_secret(credential)


def _read_env() -> set[str]:
    found: set[str] = set()
    for name, value in os.environ.items():
        if _HEADERS_NAME.match(name):
            for item in value.split(","):
                found.update(header_credentials(unquote(item.partition("=")[2])))
        elif is_secret_env_name(name):
            found.add(value.strip())
    return {v for v in found if len(v) >= MIN_SECRET_LENGTH and v not in REDACTED}


def _env_secrets() -> frozenset[str]:
    """The environment's secret values, read again only when the environment changed.

    Comparing the environment's raw mapping with a copy costs about a microsecond; decoding
    and filtering every variable costs fifty, too much to pay for each scrubbed string.
    """
    global _env_cache
    raw = getattr(os.environ, "_data", None)
    snapshot: dict[Any, Any] | None = None
    if isinstance(raw, dict):
        seen, values = _env_cache
        if seen == raw:
            return values
        snapshot = dict(raw)
    values = frozenset(_read_env())
    _env_cache = (snapshot, values)
    return values


def secret_values() -> frozenset[str]:
    """Every value currently treated as a secret: the environment's and the registered ones."""
    with _LOCK:
        registered = frozenset(_REGISTERED)
    return _env_secrets() | registered


def _json_escaped(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)[1:-1]


def _base64_forms(raw: bytes) -> set[str]:
    """Base64 text that appears in the encoding of anything containing `raw`, at each of the
    three alignments (`user:key` in an HTTP Basic header puts the key at any offset)."""
    out = {base64.b64encode(raw).decode().rstrip("=")}
    for pad, skip in ((0, 0), (1, 2), (2, 3)):
        whole_groups = (pad + len(raw)) // 3
        # Characters that mix in bytes before or after the secret depend on them: dropped.
        core = base64.b64encode(b"\0" * pad + raw)[: 4 * whole_groups][skip:]
        out.add(core.decode())
    return out | {form.replace("+", "-").replace("/", "_") for form in out}


def secret_forms(secret: str) -> set[str]:
    """The texts `secret` may appear as: itself, upper/lower case, reversed, URL-encoded,
    JSON- or repr-escaped, base64-encoded (all matched case-insensitively as well)."""
    forms = {secret, secret.upper(), secret.lower(), secret[::-1], repr(secret)[1:-1]}
    forms |= {quote(secret, safe=""), quote(secret), quote_plus(secret)}
    forms |= _base64_forms(secret.encode())
    forms |= {_json_escaped(form) for form in forms}
    return {form for form in forms if len(form) >= MIN_SECRET_LENGTH}


@dataclass(frozen=True)
class SecretMatcher:
    """Finds and redacts a fixed set of secret values (and their forms) in text."""

    needles: tuple[str, ...]
    """The forms, lower-cased, for a substring test before any regex runs."""
    pattern: re.Pattern[str] | None
    """Every form, escaped, longest first, matched case-insensitively; None for no secret."""

    @classmethod
    def build(cls, secrets: frozenset[str]) -> SecretMatcher:
        """A matcher for `secrets`."""
        forms = {form for secret in secrets for form in secret_forms(secret)}
        if not forms:
            return cls((), None)
        ordered = sorted(forms, key=lambda f: (-len(f), f))
        pattern = re.compile("|".join(re.escape(f) for f in ordered), re.IGNORECASE)
        lowered = sorted({f.lower() for f in forms}, key=len)
        # A needle that contains a shorter one adds nothing to the substring test.
        needles: list[str] = []
        for candidate in lowered:
            if not any(n in candidate for n in needles):
                needles.append(candidate)
        return cls(tuple(needles), pattern)

    def present(self, lowered: str) -> bool:
        """True when lower-cased text `lowered` may hold one of the secrets."""
        return any(map(lowered.__contains__, self.needles))

    def redact(self, text: str, lowered: str | None = None) -> str:
        """`text` with every secret form replaced by `[redacted]`; `lowered` is
        `text.lower()` when the caller has it already."""
        if self.pattern is None or not self.present(text.lower() if lowered is None else lowered):
            return text
        return self.pattern.sub(REDACTED, text)


_matcher_cache: tuple[tuple[frozenset[str], int, int], SecretMatcher] | None = None


def current_matcher() -> SecretMatcher:
    """The matcher for the secrets known now; rebuilt only when they change."""
    global _matcher_cache
    # The registry only grows, so its identity and size say whether it changed.
    key = (_env_secrets(), id(_REGISTERED), len(_REGISTERED))
    cached = _matcher_cache
    if cached is not None and cached[0][1:] == key[1:] and cached[0][0] == key[0]:
        return cached[1]
    matcher = SecretMatcher.build(secret_values())
    _matcher_cache = (key, matcher)
    return matcher


def redact_secrets(text: str) -> str:
    """`text` with every known secret value (in any of its simple forms) redacted."""
    return current_matcher().redact(text)


def _url_parts(url: str) -> tuple[str, str, str, str, str]:
    """(scheme + "://", userinfo, host and path, query, "#" + fragment), by string splitting:
    unlike `urlsplit`, it never fails, even on a URL already holding `[redacted]@`."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        scheme, rest = "", url
    else:
        scheme += sep
    rest, hash_, fragment = rest.partition("#")
    rest, _, query = rest.partition("?")
    netloc, slash, path = rest.partition("/")
    userinfo, at, host = netloc.rpartition("@")
    return scheme, userinfo if at else "", host + slash + path, query, hash_ + fragment


def url_credentials(url: str) -> list[str]:
    """The credentials a URL carries: its user name and password, and the values of
    query parameters named like a key (`api_key`, `token`, `sig`...)."""
    _, userinfo, _, query, _ = _url_parts(url)
    user, _, password = userinfo.partition(":")
    found = [unquote(v) for v in (user, password, userinfo) if v]
    params = parse_qsl(query, keep_blank_values=True)
    found += [value for name, value in params if _SECRET_PARAM.search(name)]
    return [v for v in found if v]


def spec_url(spec: str) -> tuple[str, str] | None:
    """A `KIND:MODEL@URL` spec split as (`KIND:MODEL`, URL), or None when it names no URL.

    Split at the URL's scheme, not at the last "@": a URL may itself hold user:pass@host.
    """
    found = [i for i in (spec.find("@http://"), spec.find("@https://")) if i > 0]
    if not found:
        return None
    at = min(found)
    return spec[:at], spec[at + 1 :]


def register_spec_credentials(spec: str) -> None:
    """Register the credentials the URL of a model spec carries, if any (see
    `url_credentials`): from then on they are redacted by value everywhere."""
    split = spec_url(spec)
    if split is not None:
        for credential in url_credentials(split[1]):
            register_secret(credential)


def _redact_param(item: str) -> str:
    name, eq, _ = item.partition("=")
    return f"{name}={REDACTED}" if eq and _SECRET_PARAM.search(name) else item


def redact_url(url: str) -> str:
    """`url` with its userinfo and secret query values replaced by `[redacted]`; the rest
    (scheme, host, port, path, other parameters) kept, so it is still worth showing."""
    scheme, userinfo, rest, query, fragment = _url_parts(url)
    netloc = f"{REDACTED}@{rest}" if userinfo else rest
    if query:
        netloc += "?" + "&".join(_redact_param(item) for item in query.split("&"))
    return scheme + netloc + fragment
