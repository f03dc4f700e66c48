"""The records and store rows an import gives, as text: run in-process and, with
`SESSIONPROOF_NO_FASTPATH=1`, in a fresh interpreter (`python -m tests.records._rows OUT`),
so the two paths of `records._fastpath` can be compared."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from unittest import mock

import duckdb

from sessionproof.importers import _common, import_file
from sessionproof.records import _fastpath
from sessionproof.store import RunManifest, Store

from ..suites.tau2._data import TRAJECTORIES

ATIF = Path(__file__).resolve().parents[1] / "fixtures" / "atif"
RUN = "r-fastpath"


def _inputs() -> list[tuple[Path, str]]:
    return [(path, "tau2") for path in TRAJECTORIES] + [
        (path, "auto") for path in sorted(ATIF.glob("*.json*"))
    ]


def snapshot(store_path: Path) -> dict[str, object]:
    """Whether the fast path was on, every imported session as JSON (with its fields set and
    field order), and every row of every table of a store they were written to."""
    dumped: list[list[object]] = []
    # A log without times starts its sessions at time.time(): the same for both paths.
    with (
        mock.patch.object(_common.time, "time", lambda: 1_750_000_000.0),
        Store.open(store_path) as store,
    ):
        for i, (path, fmt) in enumerate(_inputs()):
            run = f"{RUN}-{i}"  # one run per file: scenario ids repeat across files
            sessions = [item.session for item in import_file(path, fmt, run_id=run).sessions]
            dumped += [
                [s.model_dump_json(), sorted(s.model_fields_set), list(s.__dict__)]
                for s in sessions
            ]
            manifest = RunManifest(run_id=run, created_at="2026-01-01T00:00:00Z", versions={})
            store.create_run(manifest)
            store.write_sessions(sessions)
    tables: dict[str, list[str]] = {}
    with duckdb.connect(str(store_path), read_only=True) as con:
        names = [row[0] for row in con.execute("SHOW TABLES").fetchall()]
        for name in sorted(names):
            rows = con.execute(f'SELECT * FROM "{name}"').fetchall()
            tables[name] = sorted(repr(row) for row in rows)
    return {"fast": _fastpath.ACTIVE, "sessions": dumped, "tables": tables}


def main() -> None:
    """Write the snapshot of a store at argv[1] to argv[2] as JSON."""
    out = snapshot(Path(sys.argv[1]))
    Path(sys.argv[2]).write_text(json.dumps(out), encoding="utf-8")


if __name__ == "__main__":
    main()
