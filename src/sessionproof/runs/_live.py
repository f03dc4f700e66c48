"""`OtlpExport`: where a run sends each session's spans the moment it ends (the live export),
for `run`, `resume` and `run_suite` alike; the sending itself is `telemetry.LiveExport`."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, get_args

from pydantic import AfterValidator, BeforeValidator, Field, field_validator

from .._secrets import register_header_secret
from ..engine import Progress
from ..errors import ConfigError
from ._typed import TypedConfig

if TYPE_CHECKING:
    from ..scoring._internal import PriceTable

Compat = Literal["openinference", "langfuse"]
"""Attribute conventions a live export may add to its spans (the telemetry package's
`--otel-compat` values; a test keeps the two lists equal)."""


def known_compat(value: object) -> object:
    """`value` when it is None or a `Compat`; else `ConfigError` naming `--otel-compat`."""
    if value is not None and value not in get_args(Compat):
        known = ", ".join(get_args(Compat))
        raise ConfigError(f"--otel-compat must be one of {known}, not {value!r}")
    return value


def secret_headers(headers: dict[str, str]) -> dict[str, str]:
    """`headers`, each value registered as a secret the moment a config holds it (so it is
    redacted wherever it would turn up, the store and the traces included)."""
    for value in headers.values():
        register_header_secret(value)
    return headers


CompatOption = Annotated[Compat | None, BeforeValidator(known_compat)]
"""A config field of `Compat` (or None), a bad value named as `--otel-compat` is."""

SecretHeaders = Annotated[dict[str, str], AfterValidator(secret_headers)]
"""A config field of collector headers, each value a secret once the config holds it."""


class OtlpExport(TypedConfig):
    """An OTLP/HTTP collector that receives every session's spans as the session ends
    (`sessionproof run --otlp-endpoint`). A run with one is `RunConfig(export=OtlpExport(...))`.
    """

    KIND: ClassVar[str] = "live export"

    def __init__(self, **data: Any) -> None:
        """Validate; a bad value raises `ConfigError` naming the field."""
        super().__init__(**data)

    endpoint: str
    """The collector's base URL (`/v1/traces` is added), e.g. `http://127.0.0.1:4318`."""
    headers: SecretHeaders = Field(default_factory=dict, repr=False)
    """Headers sent with every request (often credentials: registered as secrets, so they
    are redacted wherever they would turn up, and never shown in this object's repr)."""
    content: bool = False
    """Spans carry messages, arguments and results (scrubbed)."""
    compat: CompatOption = None
    """Also the attributes Phoenix (`openinference`) or Langfuse (`langfuse`) read."""

    @field_validator("endpoint")
    @classmethod
    def _an_endpoint(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the collector's URL is empty")
        return value.strip()


@contextlib.contextmanager
def exporting(
    export: OtlpExport | None,
    progress: Progress | None,
    suite: str,
    prices: PriceTable | None = None,
) -> Iterator[Progress | None]:
    """The progress a run reports to: `progress` itself, or (with `export`) a live export
    that passes every call on to it and sends each finished session's spans; leaving flushes
    what is still queued. Raises `ConfigError` for unusable settings before the run starts."""
    if export is None:
        yield progress
        return
    from ..telemetry import LiveExport

    with LiveExport(
        progress,
        export.endpoint,
        export.headers,
        content=export.content,
        suite=suite,
        compat=export.compat,
        prices=prices,
    ) as live:
        yield live
