"""Bulk writes (`write_sessions`): columnar inserts, scrubbed, all or nothing, kill-safe."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from sessionproof.errors import DuplicateSessionError
from sessionproof.records import ToolCallEvent, ToolResultEvent
from sessionproof.store import Store, _bulk
from sessionproof.store._internal import REDACTED
from sessionproof.store._scrub import Scrubber

from .factory import manifest, session

_REPO = Path(__file__).resolve().parents[2]
PLAIN = "hunter2-plain-value"
_BATCH = 50
_ARGS = ("100000", str(_BATCH))


def test_key_inside_ordinary_words_is_not_a_reason_to_scrub() -> None:
    # "key" alone sent every retail payload naming a keyboard through the regex walk.
    assert not Scrubber().might_hold('{"name": "Mechanical Keyboard", "options": {"keys": 104}}')
    for text in (
        f"api_key={PLAIN}",
        f"X-API-KEY: {PLAIN}",
        f"apikey: {PLAIN}",
        f"https://h.test/x?key={PLAIN}",
    ):
        assert Scrubber().might_hold(text), text
        assert PLAIN not in Scrubber().text(text), text


def test_bulk_batch_round_trips_mixed_sessions(store: Store) -> None:
    ids = [f"s{i}" for i in range(7)]
    store.create_run(manifest("rb", ids))
    batch = [
        session("rb", "s0"),
        session("rb", "s1", success=None),  # no outcome: NULL success, reward, outcome
        session("rb", "s2", success=False, turns=1, every_kind=False),
        session("rb", "s3", trial=2),
    ]
    store.write_sessions(batch)
    store.write_sessions([session("rb", "s4")])
    loaded = store.load_sessions("rb")
    assert loaded == sorted([*batch, session("rb", "s4")], key=lambda s: s.scenario_id)
    rows = {r.scenario_id: r for r in store.session_rows("rb")}
    assert rows["s1"].success is None and rows["s1"].reward is None
    assert rows["s2"].success is False and rows["s3"].trial == 2


def test_bulk_write_scrubs_a_secret_in_one_payload_of_a_clean_session(
    store: Store, store_path: Path
) -> None:
    # One payload holds the secret, the rest of the session nothing to redact: the
    # whole-session test must not let it through.
    store.create_run(manifest("rs", ["a", "b"]))
    leaky = session("rs", "a")
    events = [e.model_copy(deep=True) for e in leaky.events]
    call = next(e for e in events if isinstance(e, ToolCallEvent))
    call.payload.arguments = {"x-api-key": PLAIN, "order_id": "101"}
    result = next(e for e in events if isinstance(e, ToolResultEvent))
    result.payload.output = f"GET /o?key={PLAIN} answered 200"
    store.write_sessions([leaky.model_copy(update={"events": events}), session("rs", "b")])
    store.close()
    with duckdb.connect(str(store_path), read_only=True) as conn:
        dump = "\n".join(str(r) for r in conn.execute("SELECT payload FROM events").fetchall())
    assert PLAIN not in dump
    assert dump.count(REDACTED) == 2


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["bulk", "bulk-direct"])
def test_kill_mid_bulk_write_loses_no_acknowledged_batch_and_duplicates_none(
    store_path: Path, mode: str
) -> None:
    Store.open(store_path).close()
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.store.writer", str(store_path), mode, "rk", *_ARGS],
        cwd=_REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "run rk"
    done: list[int] = []
    while True:
        line = child.stdout.readline().split()
        assert line and line[0] in ("begin", "done"), child.stderr.read() if child.stderr else ""
        if line[0] == "done":
            done.append(int(line[1]))
        elif len(done) >= 3:
            break  # batch `line[1]` is being written now: kill it mid-write
    os.kill(child.pid, signal.SIGKILL)
    rest, _ = child.communicate(timeout=60)
    assert child.returncode == -signal.SIGKILL
    done += [int(line.split()[1]) for line in rest.splitlines() if line.startswith("done ")]

    with Store.open(store_path) as store:
        stored = store.load_sessions("rk")
        ids = [s.scenario_id for s in stored]
        assert len(ids) == len(set(ids))
        batches = {int(i[2:]) // _BATCH for i in ids}
        assert set(done) <= batches
        # Batches are whole: every stored batch has all its sessions and all their events.
        assert len(ids) == len(batches) * _BATCH
        assert batches == set(range(len(batches)))
        assert len(batches - set(done)) <= 1  # at most the one cut between commit and `done`
        for s in stored:
            assert s == session("rk", s.scenario_id)
        # Resume: the rest goes in once.
        missing = [f"sc{i:05d}" for i in range(len(ids), len(ids) + _BATCH)]
        store.write_sessions([session("rk", i) for i in missing])
        assert len(store.session_rows("rk")) == len(ids) + _BATCH


def test_a_model_calls_usage_fields_are_not_a_reason_to_scrub() -> None:
    # "input_tokens" and its siblings spell "token": every model call was scrubbed value by
    # value. A credential next to them is still found, and so is one they would join into.
    usage = '{"usage": {"input_tokens": 10, "output_tokens": 5, "cached_tokens": 0}}'
    assert not Scrubber().might_hold(usage)
    assert not Scrubber().might_hold(usage.upper())
    for text in (
        usage[:-1] + f', "access_token": "{PLAIN}"}}',
        usage[:-1] + f', "note": "auth_token={PLAIN}"}}',
        f'{{"url": "https://h.test/x?token={PLAIN}", "usage": {usage}}}',
    ):
        assert Scrubber().might_hold(text), text
        assert PLAIN not in Scrubber().text(text), text
    # Cut out, the two sides of a usage name can spell a marker: flagged, never missed.
    assert Scrubber().might_hold('to"input_tokens"ken')


def _wal_bytes(path: Path) -> int:
    wal = Path(f"{path}.wal")
    return wal.stat().st_size if wal.exists() else 0


def _threshold(store: Store) -> str:
    row = store._writable().execute("SELECT current_setting('checkpoint_threshold')").fetchone()
    assert row is not None
    return str(row[0])


def test_a_large_batch_is_committed_into_the_file_and_the_wal_stays_empty(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    batch = [session("rb", f"s{i}") for i in range(40)]
    with Store.open(tmp_path / "wal.duckdb") as store:
        store.create_run(manifest("rb", [s.scenario_id for s in batch]))
        default = _threshold(store)
        store.write_sessions(batch[:20])
        assert _wal_bytes(store.path) > 0  # a small batch goes through the WAL
    monkeypatch.setattr(_bulk, "DIRECT_COMMIT_CHARS", 0)  # every batch counts as large
    with Store.open(tmp_path / "wal.duckdb") as store:  # the close checkpointed the first
        assert _wal_bytes(store.path) == 0
        store.write_sessions(batch[20:])
        assert _wal_bytes(store.path) == 0  # written into the file by the commit itself
        assert _threshold(store) == default
        with pytest.raises(DuplicateSessionError):
            store.write_sessions(batch[:1])
        assert _threshold(store) == default  # restored after a failed write too
        stored = sorted(store.load_sessions("rb"), key=lambda s: int(s.scenario_id[1:]))
        assert stored == batch
