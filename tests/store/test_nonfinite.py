"""A typed number that is not finite (an infinite latency, a NaN reward from a judge) is
stored so that it reads back as it was: JSON has no literal for it, and `null` in a float
field made the whole session unreadable."""

from __future__ import annotations

import math
from pathlib import Path

from sessionproof.records import Session, ToolResultEvent
from sessionproof.records._internal import ModelCallEvent
from sessionproof.store import Store

from .factory import manifest, session
from .test_store_kept import _edit


def _odd_numbers(run_id: str) -> Session:
    s = _edit(session(run_id, "odd"), ModelCallEvent, latency_s=float("inf"))
    s = _edit(s, ToolResultEvent, latency_s=float("nan"))
    assert s.outcome is not None
    outcome = s.outcome.model_copy(update={"reward": float("-inf")})
    return s.model_copy(update={"outcome": outcome})


def _fresh(path: Path, run_id: str) -> list[Session]:
    with Store.open_for_reading(path) as db:
        return db.load_sessions(run_id)


def test_infinite_and_nan_typed_numbers_read_back_as_written(store_path: Path) -> None:
    written = _odd_numbers("r1")
    with Store.open(store_path) as db:
        db.create_run(manifest("r1", [written.scenario_id]))
        db.write_session(written)
    (got,) = _fresh(store_path, "r1")
    assert got.events_of(ModelCallEvent)[0].payload.latency_s == math.inf
    assert math.isnan(got.events_of(ToolResultEvent)[0].payload.latency_s)
    assert got.outcome is not None and got.outcome.reward == -math.inf


def test_the_bulk_write_and_the_kept_copy_agree_with_a_fresh_read(store_path: Path) -> None:
    written = [_odd_numbers("r1"), session("r1", "plain")]
    with Store.open(store_path) as db:
        db.keep_written()
        db.create_run(manifest("r1", [s.scenario_id for s in written]))
        db.write_sessions(written)
        kept = db.load_sessions("r1")
    fresh = _fresh(store_path, "r1")
    assert [s.model_dump_json() for s in kept] == [s.model_dump_json() for s in fresh]
    assert fresh[0].events_of(ModelCallEvent)[0].payload.latency_s == math.inf
