"""Sending verdict notes (`_verdict_notes`) to the tool the traces went to.

`--otel-compat openinference`: Phoenix span annotations, `POST BASE/v1/span_annotations`, where
BASE is the OTLP endpoint without `/v1/traces`; the OTLP headers (`--otlp-header`, and
OTEL_EXPORTER_OTLP_HEADERS) go along, as Phoenix takes the same API key for both.

`--otel-compat langfuse`: Langfuse scores, one `POST BASE/api/public/scores` each, where BASE is
LANGFUSE_HOST (or LANGFUSE_BASE_URL), else the OTLP endpoint without `/api/public/otel...`.
Credentials: basic auth of LANGFUSE_PUBLIC_KEY and LANGFUSE_SECRET_KEY when both are set, else
the OTLP headers' Authorization (Langfuse's OTLP endpoint takes the same basic auth). They are
read from the environment or the flags when sending, and never written or logged.
"""

from __future__ import annotations

import base64
import logging
import os
import urllib.parse
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import InfraError
from ..records import Session
from ..store import Store
from ..store._internal import scrub_text
from ._verdict_notes import langfuse_scores, phoenix_annotations

if TYPE_CHECKING:
    import httpx

_log = logging.getLogger(__name__)
_PHOENIX_CHUNK = 500
"""Annotations per Phoenix request."""
_LANGFUSE_OTEL = "/api/public/otel"


@dataclass(frozen=True)
class VerdictTarget:
    """Where a run's verdict notes go: the tool (`compat`), its base URL and the headers."""

    compat: str
    base: str
    headers: dict[str, str] = field(repr=False)

    def __str__(self) -> str:
        return f"{self.compat} at {self.base}"


def _env_headers() -> dict[str, str]:
    """OTEL_EXPORTER_OTLP_HEADERS (`k=v,k2=v2`, values URL-encoded), as the exporter reads it."""
    out: dict[str, str] = {}
    raw = os.environ.get("OTEL_EXPORTER_OTLP_TRACES_HEADERS") or os.environ.get(
        "OTEL_EXPORTER_OTLP_HEADERS", ""
    )
    for pair in raw.split(","):
        key, sep, value = pair.partition("=")
        if sep and key.strip():
            out[urllib.parse.unquote(key.strip()).lower()] = urllib.parse.unquote(value.strip())
    return out


def _otlp_base(endpoint: str | None) -> str | None:
    """The collector's base URL: `endpoint` (or the OTEL_EXPORTER_OTLP_* endpoint) without a
    trailing `/v1/traces`."""
    url = endpoint
    if url is None:
        url = os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") or os.environ.get(
            "OTEL_EXPORTER_OTLP_ENDPOINT"
        )
    if not url:
        return None
    base = url.strip().rstrip("/")
    return base.removesuffix("/v1/traces")


def verdict_target(
    compat: str | None, endpoint: str | None, headers: Mapping[str, str] | None = None
) -> VerdictTarget | str | None:
    """Where `compat`'s verdict notes go for traces sent to `endpoint` with `headers`; None
    when `compat` files none; a sentence saying why not when they cannot be sent."""
    if compat not in ("openinference", "langfuse"):
        return None
    merged = _env_headers() | {k.lower(): v for k, v in (headers or {}).items()}
    otlp = _otlp_base(endpoint)
    if compat == "openinference":
        if otlp is None:
            return "no OTLP endpoint to find Phoenix at"
        return VerdictTarget(compat, otlp, merged)
    base = os.environ.get("LANGFUSE_HOST") or os.environ.get("LANGFUSE_BASE_URL")
    if not base and otlp is not None and _LANGFUSE_OTEL in otlp:
        base = otlp[: otlp.index(_LANGFUSE_OTEL)]
    if not base:
        return (
            "Langfuse's address is unknown: set LANGFUSE_HOST, or send the traces to its "
            f"{_LANGFUSE_OTEL} endpoint"
        )
    public, secret = os.environ.get("LANGFUSE_PUBLIC_KEY"), os.environ.get("LANGFUSE_SECRET_KEY")
    auth: dict[str, str] = {}
    if public and secret:
        token = base64.b64encode(f"{public}:{secret}".encode()).decode()
        auth["authorization"] = f"Basic {token}"
    elif "authorization" in merged:
        auth["authorization"] = merged["authorization"]
    return VerdictTarget(compat, base.rstrip("/"), auth)


def _post(client: httpx.Client, target: VerdictTarget, path: str, body: object) -> None:
    import httpx

    url = target.base + path
    try:
        response = client.post(url, json=body, headers=target.headers)
    except httpx.HTTPError as exc:
        raise InfraError(f"cannot send verdicts to {target}: {type(exc).__name__}") from None
    if response.is_error:
        said = " ".join(response.text.split())[:200]
        raise InfraError(
            f"{target} refused the verdicts: HTTP {response.status_code} on POST {path}"
            + (f": {scrub_text(said)}" if said else "")
        )


def post_verdicts(
    target: VerdictTarget, sessions: Iterable[Session], timeout_s: float = 30.0
) -> int:
    """Send the verdict notes of `sessions` to `target`; the number sent. Raises InfraError
    (one line, no credential in it) when the tool cannot be reached or refuses them."""
    import httpx  # here: the live export's worker starts without it when no compat is asked

    sessions = list(sessions)
    with httpx.Client(timeout=timeout_s) as client:
        if target.compat == "openinference":
            items = phoenix_annotations(sessions)
            for i in range(0, len(items), _PHOENIX_CHUNK):
                chunk = {"data": items[i : i + _PHOENIX_CHUNK]}
                _post(client, target, "/v1/span_annotations", chunk)
            return len(items)
        scores = langfuse_scores(sessions)
        for score in scores:
            _post(client, target, "/api/public/scores", score)
        return len(scores)


def send_run_verdicts(
    run_id: str,
    store: str | Path,
    compat: str | None,
    endpoint: str | None,
    headers: Mapping[str, str] | None = None,
) -> int:
    """File the verdicts of a stored run where its traces were just sent (see the module
    docstring); the number of notes sent. A tool whose address cannot be found is warned
    about (the traces went out all the same); one that refuses them is an InfraError."""
    target = verdict_target(compat, endpoint, headers)
    if target is None:
        return 0
    if isinstance(target, str):
        _log.warning("verdicts not sent: %s", target)
        return 0

    with Store.open_for_reading(Path(store)) as db:
        sessions = db.load_sessions(run_id)
    return post_verdicts(target, sessions)
