"""A session is written whole and once: failures roll back, duplicates are refused."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import duckdb
import pytest

from sessionproof.errors import DuplicateSessionError, StoreError
from sessionproof.records import (
    EventKind,
    TerminationReason,
    ToolCall,
    ToolCallEvent,
    UserMessageEvent,
)
from sessionproof.records._internal import make_event
from sessionproof.store import Store, _store

from .factory import manifest, session


def _counts(store_path: Path) -> tuple[int, int]:
    """(sessions, events) rows in the file, read by a fresh DuckDB connection."""
    with duckdb.connect(str(store_path), read_only=True) as conn:
        n_sessions = conn.execute("SELECT count(*) FROM sessions").fetchone()
        n_events = conn.execute("SELECT count(*) FROM events").fetchone()
    assert n_sessions is not None and n_events is not None
    return int(n_sessions[0]), int(n_events[0])


def test_database_failure_mid_write_leaves_nothing(
    store: Store, store_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.create_run(manifest("r1", ["a", "b"]))
    first = session("r1", "a")
    store.write_session(first)
    # The events statement now fails inside DuckDB after the session row went in.
    monkeypatch.setattr(_store, "_INSERT_EVENTS", "INSERT INTO no_such_table VALUES (1)")
    doomed = session("r1", "b")
    with pytest.raises(StoreError, match=r"'b\.t0\.baseline'.*nothing of it was stored"):
        store.write_session(doomed)
    assert store.finished_keys("r1") == {("a", 0, "baseline")}
    monkeypatch.undo()
    # The key is still free and the connection usable: the same session now goes in whole.
    store.write_session(doomed)
    assert store.load_sessions("r1") == [first, doomed]
    store.close()
    assert _counts(store_path) == (2, len(first.events) + len(doomed.events))


def test_interrupt_mid_write_rolls_back_and_propagates(
    store: Store, store_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.create_run(manifest("r1", ["a"]))
    real_insert = _store.Store._insert

    def insert_then_interrupt(conn: duckdb.DuckDBPyConnection, prepared: object) -> None:
        real_insert(conn, prepared)  # type: ignore[arg-type]
        raise KeyboardInterrupt

    monkeypatch.setattr(_store.Store, "_insert", staticmethod(insert_then_interrupt))
    with pytest.raises(KeyboardInterrupt):
        store.write_session(session("r1", "a"))
    assert store.finished_keys("r1") == set()
    store.close()
    assert _counts(store_path) == (0, 0)


def test_duplicate_key_is_refused_and_store_unchanged(store: Store, store_path: Path) -> None:
    store.create_run(manifest("r1", ["a"]))
    original = session("r1", "a", success=True)
    store.write_session(original)
    again = session("r1", "a", success=False, session_id="another-id")
    with pytest.raises(DuplicateSessionError, match="scenario 'a' trial 0 arm 'baseline'"):
        store.write_session(again)
    same_id = session("r1", "b", session_id=original.session_id)
    with pytest.raises(DuplicateSessionError, match="session with id"):
        store.write_session(same_id)
    assert store.load_sessions("r1") == [original]
    store.close()
    assert _counts(store_path) == (1, len(original.events))


def test_same_key_in_another_run_is_fine(store: Store) -> None:
    for run_id in ("r1", "r2"):
        store.create_run(manifest(run_id, ["a"]))
        store.write_session(session(run_id, "a"))
    assert store.finished_keys("r1") == store.finished_keys("r2") == {("a", 0, "baseline")}


def test_inconsistent_sessions_are_refused_before_writing(store: Store, store_path: Path) -> None:
    store.create_run(manifest("r1", ["a"]))
    good = session("r1", "a")
    stray = good.events[0].model_copy(update={"session_id": "other", "seq": 999})
    with pytest.raises(StoreError, match="belongs to session 'other'"):
        store.write_session(good.model_copy(update={"events": [*good.events, stray]}))
    repeated = good.events[3].model_copy()
    with pytest.raises(StoreError, match=r"seq repeated: \[3\]"):
        store.write_session(good.model_copy(update={"events": [*good.events, repeated]}))
    unserialisable = make_event(
        EventKind.tool_call,
        ToolCall(id="c-bad", name="get_order", arguments={"detail": object()}),
        run_id="r1",
        session_id=good.session_id,
        seq=500,
        turn=0,
        step=0,
        t_wall=0.0,
        t_mono=0.0,
    )
    with pytest.raises(StoreError, match="seq 500 is not JSON-serialisable"):
        store.write_session(good.model_copy(update={"events": [*good.events, unserialisable]}))
    with pytest.raises(StoreError, match=r"no run 'ghost'.*create_run"):
        store.write_session(session("ghost", "a"))
    store.close()
    assert _counts(store_path) == (0, 0)


def test_broken_unicode_from_a_model_is_kept_not_fatal(store: Store) -> None:
    store.create_run(manifest("r1", ["a"]))
    original = session("r1", "a")
    events = [e.model_copy(deep=True) for e in original.events]
    first = events[0]
    assert isinstance(first, UserMessageEvent)
    first.payload.content = "half an emoji: \ud83d!"
    broken = original.model_copy(
        update={"events": events, "termination_detail": "model said \udc00 then stopped"}
    )
    store.write_session(broken)
    [loaded] = store.load_sessions("r1")
    assert isinstance(loaded.events[0], UserMessageEvent)
    assert loaded.events[0].payload.content == "half an emoji: ?!"
    assert loaded.termination_detail == "model said ? then stopped"
    assert loaded.events[1:] == original.events[1:]


def test_create_run_twice_is_refused(store: Store) -> None:
    store.create_run(manifest("r1", ["a"]))
    with pytest.raises(StoreError, match="already exists"):
        store.create_run(manifest("r1", ["b"]))
    assert store.get_run("r1").scenario_ids == ["a"]


def test_read_only_and_closed_stores_refuse_writes(store_path: Path) -> None:
    with Store.open(store_path) as writable:
        writable.create_run(manifest("r1", ["a"]))
    with Store.open(store_path, read_only=True) as ro:
        assert ro.read_only
        with pytest.raises(StoreError, match="read-only"):
            ro.write_session(session("r1", "a"))
        with pytest.raises(StoreError, match="read-only"):
            ro.set_status("r1", "finished")
        assert ro.get_run("r1").status == "running"
    with pytest.raises(StoreError, match="closed"):
        ro.list_runs()


def test_finished_keys_are_what_resume_skips(store: Store) -> None:
    rng = random.Random(5)
    grid = [(f"s{i}", t, a) for i in range(4) for t in range(3) for a in ("baseline", "guard")]
    written = set(rng.sample(grid, k=9))
    run_id = "r20260101-000000-abcdef"
    ids = [f"s{i}" for i in range(4)]
    store.create_run(manifest(run_id, ids, trials=3, arms=["baseline", "guard"]))
    store.create_run(manifest("r19990101-000000-000000", ids))
    store.write_session(session("r19990101-000000-000000", "s0"))
    for scenario_id, trial, arm in sorted(written):
        store.write_session(session(run_id, scenario_id, trial, arm))
    assert store.finished_keys(run_id) == written
    assert store.finished_keys("r2026") == written  # a unique prefix names the run too
    with pytest.raises(StoreError, match="no run 'zz'"):
        store.finished_keys("zz")


def test_list_runs_excludes_infra_errors_from_accuracy(store: Store) -> None:
    rng = random.Random(17)
    store.create_run(manifest("r1", [f"s{i}" for i in range(10)], trials=2, arms=["a", "b", "c"]))
    store.create_run(manifest("r2", ["x"], created_at="2999-01-01T00:00:00+00:00"))
    successes = infra = 0
    for i in range(25):
        kind = rng.choice(["success", "failure", "infra"])
        termination = (
            TerminationReason.infra_error if kind == "infra" else TerminationReason.user_stop
        )
        # An infra-error session can carry a stray success verdict; it must still not count.
        success = kind == "success" or (kind == "infra" and i % 2 == 0)
        store.write_session(
            session(
                "r1", f"s{i % 10}", i // 10, "abc"[i % 3], success=success, termination=termination
            )
        )
        successes += kind == "success"
        infra += kind == "infra"
    r1, r2 = store.list_runs()
    assert (r1.run_id, r2.run_id) == ("r1", "r2")
    assert r1.sessions_done == 25
    assert r1.sessions_expected == 10 * 2 * 3
    assert (r1.successes, r1.infra_errors) == (successes, infra)
    assert r1.accuracy == pytest.approx(successes / (25 - infra))
    assert r1.arms == ["a", "b", "c"] and r1.model == "openai:gpt-4o-mini"
    assert (r2.sessions_done, r2.sessions_expected, r2.accuracy) == (0, 1, None)


def test_only_infra_errors_give_no_accuracy(store: Store) -> None:
    store.create_run(manifest("r1", ["a"]))
    store.write_session(session("r1", "a", success=None, termination=TerminationReason.infra_error))
    [summary] = store.list_runs()
    assert (summary.sessions_done, summary.infra_errors, summary.accuracy) == (1, 1, None)


def test_write_sessions_is_all_or_nothing(tmp_path: Path) -> None:
    with Store.open(tmp_path / "b.duckdb") as store:
        store.create_run(manifest("rb", ["a", "b", "c"]))
        first = [session("rb", "a", 0), session("rb", "b", 0)]
        store.write_sessions(first)
        assert store.finished_keys("rb") == {("a", 0, "baseline"), ("b", 0, "baseline")}
        events = sum(len(s.events) for s in store.load_sessions("rb"))
        assert events == sum(len(s.events) for s in first)
        # The error names the session that clashed, not the first of the batch.
        with pytest.raises(DuplicateSessionError, match="scenario 'a' trial 0"):
            store.write_sessions([session("rb", "c", 0), session("rb", "a", 0)])
        assert store.finished_keys("rb") == {("a", 0, "baseline"), ("b", 0, "baseline")}
        twice = [session("rb", "c", 0), session("rb", "c", 0, session_id="other")]
        with pytest.raises(DuplicateSessionError, match=r"scenario 'c' .* \(twice in one batch\)"):
            store.write_sessions(twice)
        assert store.finished_keys("rb") == {("a", 0, "baseline"), ("b", 0, "baseline")}


def test_a_payload_nested_past_any_serialiser_is_a_named_store_error(store: Store) -> None:
    # 300 levels: json.loads reads it from a model's reply; pydantic refuses to serialise
    # it with a ValueError, which used to escape write_session unnamed.
    deep: Any = 1
    for _ in range(300):
        deep = [deep]
    store.create_run(manifest("rd", ["a"]))
    original = session("rd", "a")
    events = [e.model_copy(deep=True) for e in original.events]
    call = next(e for e in events if isinstance(e, ToolCallEvent))
    call.payload.arguments = {"x": deep}
    for write in (store.write_session, lambda s: store.write_sessions([s])):
        with pytest.raises(StoreError, match="not JSON-serialisable"):
            write(original.model_copy(update={"events": events}))
    assert store.session_rows("rd") == []


def test_an_integer_past_64_bits_is_refused_and_a_long_digit_string_is_kept(
    store: Store,
) -> None:
    store.create_run(manifest("rb", ["a", "b"]))
    original = session("rb", "a")
    events = [e.model_copy(deep=True) for e in original.events]
    call = next(e for e in events if isinstance(e, ToolCallEvent))
    call.payload.arguments = {"order": 2**70}  # JSON readers here could not read it back
    with pytest.raises(StoreError, match="not JSON-serialisable"):
        store.write_session(original.model_copy(update={"events": events}))
    digits = session("rb", "b")
    events = [e.model_copy(deep=True) for e in digits.events]
    call = next(e for e in events if isinstance(e, ToolCallEvent))
    call.payload.arguments = {"card": "4111111111111111111111", "n": 2**63 - 1}
    kept = digits.model_copy(update={"events": events})
    store.write_session(kept)
    [back] = store.load_sessions("rb")
    assert back == kept


def test_list_runs_counts_unjudged_sessions_apart(store: Store) -> None:
    store.create_run(manifest("r1", ["a", "b", "c", "d"]))
    store.create_run(manifest("r2", ["a", "b"], created_at="2999-01-01T00:00:00+00:00"))
    for scenario_id, success in (("a", True), ("b", False), ("c", None), ("d", None)):
        store.write_session(session("r1", scenario_id, success=success))
    for scenario_id in ("a", "b"):
        store.write_session(session("r2", scenario_id, success=None))
    r1, r2 = store.list_runs()
    assert (r1.successes, r1.not_judged, r1.infra_errors, r1.accuracy) == (1, 2, 0, 0.5)
    # Nothing judged: no accuracy, never 0.
    assert (r2.sessions_done, r2.not_judged, r2.accuracy) == (2, 2, None)
