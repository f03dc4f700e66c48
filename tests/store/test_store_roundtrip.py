"""Sessions and runs go in and come back out unchanged, typed, and in order."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from sessionproof.errors import StoreError
from sessionproof.records import AssistantMessageEvent, EventKind, Session, TerminationReason
from sessionproof.store import RunManifest, Store
from sessionproof.store._internal import installed_version, new_run_id, package_versions

from .factory import manifest, session


def test_session_with_every_event_kind_round_trips(store: Store, store_path: Path) -> None:
    original = session("r1", "refund-1042", trial=2, arm="faults:timeout")
    assert {e.kind for e in original.events} == set(EventKind)
    store.create_run(manifest("r1", ["refund-1042"], trials=3))
    store.write_session(original)
    store.close()

    # Reopen: what comes back is read from the file, not from anything cached in memory.
    with Store.open(store_path, read_only=True) as reopened:
        [loaded] = reopened.load_sessions("r1")
    assert loaded == original
    # Each event comes back as its kind's model, with its kind's typed payload.
    assert [type(e) for e in loaded.events] == [type(e) for e in original.events]
    assert [type(e.payload) for e in loaded.events] == [type(e.payload) for e in original.events]
    assert dict not in {type(e.payload) for e in loaded.events}
    assert loaded.tool_results() == original.tool_results()
    assert loaded.outcome is not None and loaded.outcome == original.outcome


def test_events_come_back_in_seq_order(store: Store) -> None:
    original = session("r1", "s")
    shuffled = original.model_copy(
        update={"events": random.Random(3).sample(original.events, k=len(original.events))}
    )
    assert [e.seq for e in shuffled.events] != [e.seq for e in original.events]
    store.create_run(manifest("r1", ["s"]))
    store.write_session(shuffled)
    [loaded] = store.load_sessions("r1")
    assert [e.seq for e in loaded.events] == sorted(e.seq for e in original.events)
    assert loaded.events == original.events


def test_session_without_events_or_verdict(store: Store) -> None:
    bare = Session(
        run_id="r1",
        session_id="x",
        scenario_id="x",
        trial=0,
        termination=TerminationReason.infra_error,
        termination_detail="provider returned 503 five times",
    )
    store.create_run(manifest("r1", ["x"]))
    store.write_session(bare)
    assert store.load_sessions("r1") == [bare]
    [row] = store.session_rows("r1")
    assert row.success is None and row.reward is None and row.infra_error
    assert (row.n_turns, row.n_steps, row.n_tool_calls) == (0, 0, 0)


def test_session_rows_derive_counts_from_events(store: Store) -> None:
    sessions = [session("r1", f"s{i}", turns=i + 1, success=i % 2 == 0) for i in range(3)]
    store.create_run(manifest("r1", [s.scenario_id for s in sessions]))
    for s in sessions:
        store.write_session(s)
    rows = store.session_rows("r1")
    assert [r.scenario_id for r in rows] == [s.scenario_id for s in sessions]
    for row, s in zip(rows, sessions, strict=True):
        assert row.n_tool_calls == len(s.tool_calls())
        assert row.n_tool_errors == sum(not r.ok for r in s.tool_results())
        assert row.n_turns == max(e.turn for e in s.events) + 1
        replies = [e for e in s.events_of(AssistantMessageEvent) if not e.payload.tool_calls]
        assert row.n_steps == len(s.tool_calls()) + len(replies)
        assert row.success == s.success
        assert row.tokens == s.usage.input_tokens + s.usage.output_tokens
        assert row.duration_s == pytest.approx(s.ended_at - s.started_at)


def test_load_sessions_filters_by_session_id_and_arm(store: Store) -> None:
    arms = ["baseline", "faults:timeout"]
    sessions = [session("r1", f"s{i}", arm=a) for i in range(2) for a in arms]
    store.create_run(manifest("r1", ["s0", "s1"], arms=arms))
    for s in sessions:
        store.write_session(s)
    assert store.load_sessions("r1", session_id=sessions[1].session_id) == [sessions[1]]
    assert store.load_sessions("r1", arm="faults:timeout") == [
        s for s in sessions if s.arm == "faults:timeout"
    ]
    assert store.load_sessions("r1", arm="no-such-arm") == []
    with pytest.raises(StoreError, match="no session 'nope'"):
        store.load_sessions("r1", session_id="nope")


def test_manifest_round_trips_and_records_versions(store: Store) -> None:
    m = manifest(
        "r1",
        ["a", "b"],
        trials=4,
        arms=["baseline", "guard"],
        seed=11,
        options={"fault_rate": 0.03},
    )
    store.create_run(m)
    assert store.get_run("r1") == m
    versions = package_versions()
    assert {"python", "pydantic", "duckdb", "sessionproof"} <= versions.keys()
    assert m.versions == versions


def test_get_run_accepts_unique_prefix_and_names_missing_ids(store: Store) -> None:
    ids = ["r20261130-120102-aaaaaa", "r20261130-120102-abbbbb", "r20261201-090000-cccccc"]
    for i, run_id in enumerate(ids):
        store.create_run(manifest(run_id, [], created_at=f"2026-12-0{i + 1}T00:00:00+00:00"))
    assert store.get_run("r20261201").run_id == ids[2]
    assert store.get_run("r20261130-120102-ab").run_id == ids[1]
    with pytest.raises(StoreError, match="ambiguous") as ambiguous:
        store.get_run("r20261130-120102-a")
    assert ids[0] in str(ambiguous.value) and ids[1] in str(ambiguous.value)
    with pytest.raises(StoreError) as missing:
        store.get_run("r1999")
    assert "r1999" in str(missing.value)
    assert all(run_id in str(missing.value) for run_id in ids)
    with pytest.raises(StoreError, match="empty run id"):
        store.get_run("")


def test_set_status_is_kept(store: Store, store_path: Path) -> None:
    store.create_run(manifest("r1", []))
    assert store.get_run("r1").status == "running"
    store.set_status("r1", "interrupted")
    store.close()
    with Store.open(store_path) as reopened:
        assert reopened.get_run("r1").status == "interrupted"
        assert reopened.list_runs()[0].status == "interrupted"
        reopened.set_status("r1", "finished")
        assert reopened.get_run("r1").status == "finished"
        with pytest.raises(StoreError, match="unknown run status"):
            reopened.set_status("r1", "exploded")  # type: ignore[arg-type]


def test_new_run_ids_are_unique_and_sort_by_time() -> None:
    ids = [new_run_id() for _ in range(200)]
    assert len(set(ids)) == len(ids)
    m1 = RunManifest()
    assert m1.run_id.startswith("r") and m1.created_at.endswith("+00:00")
    from datetime import UTC, datetime, timedelta

    early = datetime(2026, 1, 1, tzinfo=UTC)
    assert new_run_id(early) < new_run_id(early + timedelta(seconds=1))


def test_manifest_rejects_naive_or_bad_times() -> None:
    with pytest.raises(ValueError, match="timezone"):
        RunManifest(created_at="2026-01-01T00:00:00")
    with pytest.raises(ValueError, match="ISO 8601"):
        RunManifest(created_at="yesterday")
    with pytest.raises(ValueError):
        RunManifest(unknown_field=1)  # type: ignore[call-arg]


def test_an_event_that_does_not_read_is_named_by_its_own_seq(store_path: Path) -> None:
    # Events are validated a session at a time: the error still names the event at fault,
    # not the first of its session.
    import duckdb

    original = session("r1", "s")
    target = next(e for e in original.events if e.kind is EventKind.tool_result)
    with Store.open(store_path) as db:
        db.create_run(manifest("r1", ["s"]))
        db.write_session(original)
    with duckdb.connect(str(store_path)) as conn:
        conn.execute("UPDATE events SET payload = '{\"ok\": 5}' WHERE seq = ?", [target.seq])
    with (
        Store.open(store_path, read_only=True) as reader,
        pytest.raises(StoreError, match=rf"event seq {target.seq} \(tool_result\) does not read"),
    ):
        reader.load_sessions("r1")


def test_package_versions_are_what_importlib_metadata_says() -> None:
    from importlib import metadata

    versions = package_versions()
    for name in ("sessionproof", "pydantic", "duckdb", "openai", "anthropic", "xllamacpp"):
        try:
            expected: str | None = metadata.version(name)
        except metadata.PackageNotFoundError:
            expected = None
        assert versions.get(name) == expected, name
    assert installed_version("no-such-distribution-xyz") is None
    assert installed_version("orjson") == metadata.version("orjson")
