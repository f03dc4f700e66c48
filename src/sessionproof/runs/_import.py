"""`import_traces`: a trace or transcript file in as a stored `import` run, so every metric,
`patterns` and the report work on it. `ImportConfig` holds its options for the CLI
(`sessionproof import` builds one) and the Python API alike."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar, TypedDict, Unpack

from pydantic import BaseModel, ConfigDict, Field

from ..errors import ConfigError, InputFileError
from ..importers import RecordError, detect_format, import_file
from ..importers._internal import (
    LabelRule,
    atif_run,
    nothing_imported,
    without_bom,
    write_imported,
)
from ..scoring import RunSummary
from ..scoring._internal import first_summary, summaries_by_arm
from ..store import RunManifest, Store
from ..store._internal import DEFAULT_STORE_PATH, new_run_id, recorded_run
from ..telemetry._internal import EXPORT_FORMATS, read_otlp_run
from ._label_from import LabelFrom
from ._typed import TypedConfig


class ImportConfig(TypedConfig):
    """One import: which file, read as which format, into which store."""

    KIND: ClassVar[str] = "import"

    def __init__(self, **data: Any) -> None:
        """Validate; a bad value raises `ConfigError` naming the field."""
        super().__init__(**data)

    path: Path
    """The trace or transcript file."""
    fmt: str = "auto"
    """Its format (`--format`): `auto` (detected) or one the importers register."""
    store: Path | None = DEFAULT_STORE_PATH
    """DuckDB store the new run is written to; None: read and summarised, not stored."""
    domain: str | None = None
    """The domain the sessions ran in (when the file does not say)."""
    label_from: LabelFrom = None
    """Traces, chat logs, ATIF and inspect logs: the attribute holding each session's outcome
    label (`NAME` or `NAME>=N` for a numeric score) instead of its own verdict."""


class ImportSettings(TypedDict, total=False):
    """Every `ImportConfig` field but the file, by keyword: `import_traces(path, **settings)`."""

    fmt: str
    store: str | Path | None
    domain: str | None
    label_from: str | LabelRule | None


class TraceImport(BaseModel):
    """What `sessionproof import` reports: the new run, its summary, and every problem."""

    model_config = ConfigDict(extra="forbid")

    run_id: str
    source: str
    format: str
    summary: RunSummary
    """The first arm's summary (the whole import's when its sessions name one arm)."""
    summary_by_arm: dict[str, RunSummary] = Field(default_factory=dict)
    """Arm → its summary (a trace of a multi-arm run keeps its arms apart)."""
    errors: list[RecordError] = Field(default_factory=list)
    store: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The `--json` object: the run id, `arms` (arm → its summary; with one arm its
        numbers are also at the top level, with several they are never pooled there),
        skipped and warnings."""
        one = len(self.summary_by_arm) <= 1
        return {
            "run_id": self.run_id,
            "source": self.source,
            "format": self.format,
            **(self.summary.model_dump(mode="json") if one else {}),
            "arms": {a: s.model_dump(mode="json") for a, s in self.summary_by_arm.items()},
            "skipped": [str(e) for e in self.errors if e.fatal],
            "warnings": [str(e) for e in self.errors if not e.fatal],
            "store": self.store,
        }


def import_traces(
    config: ImportConfig | str | Path,
    *,
    argv: Sequence[str] | None = None,
    **settings: Unpack[ImportSettings],
) -> TraceImport:
    """Read a trace or transcript file (any format the importers know) into a new `import`
    run in `store` (None: not stored), keeping each session's own verdict, or (`label_from`,
    a trace, ATIF or inspect file) taking each session's outcome from the label it names.

    Give an `ImportConfig`, or the file and `settings` (its other fields). `argv` is recorded
    in the run's manifest. Raises `ConfigError` in one line for a bad option,
    `InputFileError` for a file with nothing to import.
    """
    if isinstance(config, ImportConfig):
        if settings:
            raise ConfigError("import_traces takes an ImportConfig or its fields, not both")
    else:
        config = ImportConfig(path=config, **settings)
    rule, domain, store = config.label_from, config.domain, config.store
    run_id = new_run_id()
    source = config.path
    fmt = _otlp_format(source, config.fmt)
    suite, limit, arms = str(source.resolve()), None, list[str]()
    if fmt in EXPORT_FORMATS:
        # Read here, not through import_file: the run's own suite rides on the resource.
        result, info = read_otlp_run(
            _trace_bytes(source),
            source=str(source),
            run_id=run_id,
            domain=domain,
            fmt=fmt,
            label_from=rule,
        )
        suite = info.suite or suite
        limit, arms = info.limit, info.arms
    else:
        result = import_file(source, fmt, run_id=run_id, domain=domain, label_from=rule)
        if result.format == "atif" and rule is None:
            # sessionproof's own ATIF export names its run's suite, as the OTLP resource does.
            named, limit, arms = atif_run(_trace_bytes(source))
            suite = named or suite
    if not result.sessions:  # nothing is stored: say what the file held instead
        raise InputFileError(nothing_imported(str(source), result))
    sessions = [item.session for item in result.sessions]
    rows: Sequence[Any] = sessions
    if store is not None and sessions:
        manifest = RunManifest(
            run_id=run_id,
            command="import",
            suite=suite,
            limit=limit,
            arms=arms,
            model=", ".join(sorted({s.model for s in sessions if s.model})),
            scenario_ids=sorted({s.scenario_id for s in sessions}),
            options={"format": result.format, "domain": domain}
            | ({"label_from": str(rule)} if rule is not None else {}),
            argv=list(argv or []),
        )
        with Store.open(store) as db, recorded_run(db, manifest, on_error="failed"):
            write_imported(db, result)  # a session the store cannot hold is skipped by name
            rows = db.session_rows(run_id)
    by_arm = summaries_by_arm(rows, arms)
    return TraceImport(
        run_id=run_id,
        source=str(source),
        format=result.format,
        summary=first_summary(by_arm),
        summary_by_arm=by_arm,
        errors=list(result.errors),
        store=None if store is None else str(store),
    )


def _trace_bytes(path: Path) -> bytes:
    """The file's bytes; InputFileError (one line) when it cannot be read or is empty, as
    `import_file` says it for every other format."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputFileError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if not raw.strip():
        raise InputFileError(f"{path}: the file is empty")
    return raw


def _otlp_format(path: Path, fmt: str) -> str:
    """`fmt`, or (auto) the detected format when the file is OTLP-JSON."""
    if fmt != "auto":
        return fmt
    try:
        raw = without_bom(path.read_bytes())
    except OSError as exc:
        raise InputFileError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        return detect_format(raw)
    except InputFileError:
        return fmt  # import_file names the problem
