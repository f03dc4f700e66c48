"""`export RUN_ID --format NAME -o FILE` for a transcript format that can also be written.

A transcript format (`sessionproof.formats`, read by `import`/`score`) may bring a `writer`:
a `RunWriter`, or its `module:function`, that writes a stored run's sessions in the format.
This module finds the run, its sessions and their scenarios (as `metrics` finds them) and
writes the file whole or not at all. It never names a format: a benchmark's package
declares its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Protocol

from .._atomic import replaced_on_success
from .._plugins import resolve
from ..errors import ConfigError, StoreError
from ..importers._internal import get_format
from ..records import Scenario, Session
from ..store import RunManifest, Store
from ._metrics import scenarios_for


class RunWriter(Protocol):
    """Writes a stored run's sessions in one format."""

    def __call__(
        self, sessions: Sequence[Session], scenarios: Mapping[str, Scenario], manifest: RunManifest
    ) -> bytes:
        """The file's bytes; `InputFileError` when the run cannot be written in the format."""
        ...


def run_writer(fmt: str) -> RunWriter | None:
    """The writer of transcript format `fmt` (None: no such format, or one only read)."""
    try:
        found = get_format(fmt)
    except ConfigError:
        return None
    ref = getattr(found, "writer", None)
    if not ref:
        return None
    writer: RunWriter = resolve(ref, what=f"format {fmt!r} writer") if isinstance(ref, str) else ref
    return writer


def export_file(run_id: str, fmt: str, output: Path, store: Path, arm: str | None = None) -> int:
    """Write the stored run `run_id` of `store` (only arm `arm`'s sessions, when given) to
    `output` in transcript format `fmt`; returns the number of sessions written.
    `ConfigError` for a format that cannot be written or an arm the run does not have,
    `StoreError` for a missing store or run, `InputFileError` for a run the format cannot
    hold."""
    writer = run_writer(fmt)
    if writer is None:
        raise ConfigError(f"--format {fmt}: not a format a run can be exported to")
    if not Path(store).exists():
        raise StoreError(f"no store at {store}; run `sessionproof run` first or pass --store")
    with Store.open_for_reading(store) as db:
        manifest = db.get_run(run_id)
        sessions = db.load_sessions(manifest.run_id)
    if arm is not None:
        arms = sorted({s.arm for s in sessions})
        if arm not in arms:
            raise ConfigError(
                f"--arm {arm!r}: run {manifest.run_id} has arms {', '.join(arms) or 'none'}"
            )
        sessions = [s for s in sessions if s.arm == arm]
    if not sessions:
        raise StoreError(f"run {manifest.run_id} has no sessions to export")
    scenarios, _, _ = scenarios_for(manifest, sessions)
    data = writer(sessions, scenarios, manifest)
    with replaced_on_success(output) as path:
        Path(path).write_bytes(data)
    return len(sessions)
