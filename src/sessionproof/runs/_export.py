"""`export_traces`: a stored run's sessions as OpenTelemetry GenAI traces, to an OTLP file
and/or an OTLP/HTTP collector; or, to a file, as training rollouts with turn-level credit
(`rollouts`, `_rollouts`) or as Harbor's ATIF trajectories (`atif`, `_atif_out`).
`ExportConfig` holds its options for the CLI (`sessionproof export RUN_ID ...` builds one) and
the Python API alike; the spans, files and sending are the telemetry package's."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar, TypedDict, Unpack

from pydantic import Field, field_validator, model_validator

from ..errors import ConfigError
from ..scoring._internal import PriceTable
from ..store._internal import DEFAULT_STORE_PATH
from ._live import CompatOption, SecretHeaders
from ._typed import TypedConfig

_FORMATS = ("otlp-json", "otlp-proto")
"""The trace file formats (`telemetry.EXPORT_FORMATS`; a test keeps the two equal)."""
FILE_FORMATS = ("rollouts", "atif")
"""The formats written to a file only: training rollouts (JSONL) and ATIF trajectories."""


class ExportConfig(TypedConfig):
    """One export of a stored run's traces: which run, from which store, to where."""

    KIND: ClassVar[str] = "export"

    def __init__(self, **data: Any) -> None:
        """Validate; a bad value raises `ConfigError` naming the field."""
        super().__init__(**data)

    run_id: str
    """The run (or a unique prefix of its id)."""
    store: Path = DEFAULT_STORE_PATH
    """The DuckDB store holding it."""
    fmt: str = "otlp-json"
    """The file's format: `otlp-json` or `otlp-proto` (protobuf)."""
    output: Path | None = None
    """The OTLP file to write, if any."""
    endpoint: str | None = None
    """The OTLP/HTTP collector to send to, if any (`/v1/traces` is added)."""
    headers: SecretHeaders = Field(default_factory=dict, repr=False)
    """Headers for the collector (registered as secrets; never in this object's repr)."""
    content: bool = False
    """Spans carry messages, arguments and results (scrubbed)."""
    use_env: bool = False
    """Send where the OTEL_EXPORTER_OTLP_* variables say (with no `endpoint`)."""
    compat: CompatOption = None
    """Also the attributes Phoenix (`openinference`) or Langfuse (`langfuse`) read, and each
    session's verdict filed there (Phoenix annotations, Langfuse scores)."""
    prices: PriceTable | None = None
    """What prices the spans' `sessionproof.cost.usd` attributes; None: the shipped table."""
    outcome: str | None = None
    """rollouts and atif: only the sessions judged `pass` or `fail` (None: every session)."""
    arm: str | None = None
    """rollouts and atif: only the sessions of this arm (None: every arm, each line names its)."""

    @field_validator("fmt", mode="before")
    @classmethod
    def _known_format(cls, value: object) -> object:
        if value not in (*_FORMATS, *FILE_FORMATS):
            known = ", ".join((*_FORMATS, *FILE_FORMATS))
            raise ConfigError(f"--format must be one of {known}, not {value!r}")
        return value

    @model_validator(mode="after")
    def _somewhere(self) -> ExportConfig:
        if self.fmt in FILE_FORMATS:
            if self.output is None:
                raise ConfigError(f"--format {self.fmt} writes a file: give -o FILE")
            otlp = self.endpoint is not None or self.use_env or self.headers
            if otlp or self.content or self.compat is not None:
                raise ConfigError(
                    f"--format {self.fmt} writes a file; the OTLP options (--otlp-endpoint, "
                    "--otlp-header, --otel-content, --otel-compat) do not apply to it"
                )
            return self
        if self.outcome is not None or self.arm is not None:
            raise ConfigError("--outcome and --arm filter rollouts and atif exports only")
        if self.output is None and self.endpoint is None and not self.use_env:
            raise ConfigError("say where the traces go: -o FILE and/or --otlp-endpoint URL")
        return self


class ExportSettings(TypedDict, total=False):
    """Every `ExportConfig` field but the run, by keyword: `export_traces(run_id, **settings)`."""

    store: str | Path
    fmt: str
    output: str | Path | None
    endpoint: str | None
    headers: Mapping[str, str] | None
    content: bool
    use_env: bool
    compat: str | None
    prices: PriceTable | None
    outcome: str | None
    arm: str | None


def export_traces(config: ExportConfig | str, **settings: Unpack[ExportSettings]) -> int:
    """Export a stored run's sessions as OpenTelemetry GenAI traces: to `output` (an OTLP file
    of `fmt`), to the OTLP/HTTP `endpoint`, or (`use_env`) where the OTEL_EXPORTER_OTLP_*
    variables say. Message text, arguments and results only with `content`; `compat`
    (`openinference` | `langfuse`) adds the attributes Phoenix or Langfuse read, and files
    each session's verdict there. Returns the span count.

    `fmt` `rollouts` writes one JSON line per session to `output` (messages in the OpenAI chat
    shape, tool schemas, the outcome reward and per-turn and per-step credit: docs/rollouts.md),
    `atif` a JSON array of ATIF v1.7 trajectories that `import` reads back whole; both take the
    `outcome` (`pass` | `fail`) and `arm` filters and return the sessions written.

    Give an `ExportConfig`, or the run id and `settings` (its other fields). Raises
    `ConfigError` in one line for a bad option, `StoreError` for a missing store or run.
    """
    if isinstance(config, ExportConfig):
        if settings:
            raise ConfigError("export_traces takes an ExportConfig or its fields, not both")
    else:
        if settings.get("headers") is None:
            settings.pop("headers", None)
        config = ExportConfig(run_id=config, **settings)
    if config.fmt in FILE_FORMATS:
        out = config.output
        assert out is not None  # the validator says so
        if config.fmt == "atif":
            from ._atif_out import write_atif

            return write_atif(config.run_id, config.store, out, config.outcome, config.arm)
        from ._rollouts import write_rollouts

        return write_rollouts(config.run_id, config.store, out, config.outcome, config.arm)
    from ..telemetry import send
    from ..telemetry._internal import run_request, send_run_verdicts, write_file

    full_id, request, _ = run_request(
        config.run_id, config.store, config.content, config.compat, config.prices
    )
    if config.output is not None:
        write_file(request, config.output, config.fmt)
    if config.endpoint is not None or config.use_env:
        send(request, config.endpoint, config.headers)
        send_run_verdicts(full_id, config.store, config.compat, config.endpoint, config.headers)
    return len(request.resource_spans[0].scope_spans[0].spans)
