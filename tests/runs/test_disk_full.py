"""A disk that fills during a run (issue 41 item 12): one line naming the store and the
cause, the run stops (exit 2, marked `interrupted`), and `--resume` completes it with
nothing lost or stored twice.

The full disk is a real one: a 1 MiB tmpfs mounted for the test (root only), grown once
the run has stopped so that the resume has room. Before the fix the local:2 executor
printed a "Task exception was never retrieved" traceback for every session that ended
after the disk filled, and ran the whole grid regardless."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from sessionproof.engine._internal import GroupWriter
from sessionproof.errors import StoreError
from sessionproof.runs import RunConfig, run
from sessionproof.store import Store
from tests.store.factory import manifest, session

pytestmark = pytest.mark.slow  # most tests here take seconds each

TRIALS = 24
SCENARIOS = 16  # the demo suite
TOTAL = TRIALS * SCENARIOS


def _mount(where: Path, options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)],
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A directory on a 1 MiB filesystem of its own (unmounted after the test)."""
    where = tmp_path / "disk"
    where.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs (a disk that fills) needs root")
    mounted = _mount(where, "size=1m")
    if mounted.returncode != 0:
        pytest.skip(f"mount -t tmpfs is not permitted here: {mounted.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def _grow(disk: Path) -> None:
    grown = _mount(disk, "remount,size=64m")
    assert grown.returncode == 0, grown.stderr


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "400"}  # the start line unwrapped
    return subprocess.run(
        [sys.executable, "-m", "sessionproof.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        check=False,
    )


def _stored(store: Path) -> tuple[str, str, list[str]]:
    """(run id, its stored status, its stored session ids) of the store's one run."""
    with Store.open(store, read_only=True) as db:
        (listing,) = db.list_runs()
        manifest = db.get_run(listing.run_id)
        ids = [row.session_id for row in db.session_rows(listing.run_id)]
    return manifest.run_id, manifest.status, ids


@pytest.mark.parametrize("executor", ["local", "local:2"])
def test_a_disk_that_fills_stops_the_run_with_one_line_and_resume_completes_it(
    small_disk: Path, executor: str
) -> None:
    store = small_disk / "s.duckdb"
    first = _cli(
        "run",
        "--suite",
        "demo",
        "--model",
        "oracle",
        "--trials",
        str(TRIALS),
        "--concurrency",
        "64",
        "--executor",
        executor,
        "--store",
        str(store),
        "--no-report",
    )
    err = first.stderr
    assert first.returncode == 2, err[-2000:]
    assert "Traceback" not in err, err[-4000:]
    assert "never retrieved" not in err, err[-4000:]
    # Nothing but the start line, progress lines and the one error line.
    problems = [
        line
        for line in err.splitlines()
        if not line.startswith("run ") and not re.match(r"\[\d+/\d+\] ", line)
    ]
    assert len(problems) == 1, problems[:5]
    assert problems[0].startswith("error: store ")
    assert str(store) in problems[0] and "disk full" in problems[0]
    run_id, status, before = _stored(store)
    assert f"--resume {run_id}" in problems[0]
    # The run stopped part-way, marked for resume, every session it reported stored.
    assert 0 < len(before) < TOTAL
    assert status == "interrupted"  # stored, or shown so: its process is gone
    reported = re.findall(r"^\[\d+/\d+\] (\S+) ", err, flags=re.MULTILINE)
    assert set(reported) <= set(before)

    _grow(small_disk)
    again = _cli("run", "--resume", run_id, "--store", str(store), "--no-report")
    assert again.returncode == 0, again.stderr[-2000:]
    assert "Traceback" not in again.stderr
    _, status, after = _stored(store)
    assert status == "finished"
    assert len(after) == len(set(after)) == TOTAL
    assert set(before) <= set(after)


def test_the_library_raises_one_store_error_naming_the_store_and_the_cause(
    small_disk: Path,
) -> None:
    store = small_disk / "s.duckdb"
    config = RunConfig(suite="demo", model="oracle", trials=TRIALS, store=store, concurrency=8)
    with pytest.raises(StoreError) as raised:
        run(config)
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith(f"store {store}: disk full, run ")
    assert "No space left on device" in message
    # Its status stays as the full store allows (`interrupted` when the update fits, else
    # `running`, shown `interrupted` once this process is gone); its sessions are kept.
    _, _, before = _stored(store)
    assert 0 < len(before) < TOTAL


def test_the_writer_stops_at_its_first_failed_write_and_stops_the_work_it_guards(
    small_disk: Path,
) -> None:
    async def scenario() -> None:
        with Store.open(small_disk / "w.duckdb") as db:
            db.create_run(manifest("r1", ["s"], trials=100_000))
            writer = GroupWriter(db)
            trial = 0
            with pytest.raises(StoreError, match="No space left on device") as full:
                while True:  # until the disk is full
                    await writer.write(session("r1", "s", trial))
                    trial += 1
            stored = len(db.session_rows("r1"))
            assert stored == trial > 0 and writer.failure is full.value
            _grow(small_disk)
            # Room again, but the writer tries nothing more: later sessions hear of the
            # first failure, and work guarded from now on stops at once with it.
            with pytest.raises(StoreError) as later:
                await writer.write(session("r1", "s", trial + 1))
            assert later.value is full.value
            with pytest.raises(StoreError) as guarded:
                await writer.guard(asyncio.sleep(30))
            assert guarded.value is full.value
            writer.close()
            assert len(db.session_rows("r1")) == stored

    asyncio.run(asyncio.wait_for(scenario(), 60))


def test_work_guarded_before_a_write_fails_is_cancelled_with_that_failure(
    small_disk: Path,
) -> None:
    async def scenario() -> None:
        ballast = small_disk / "ballast"
        with Store.open(small_disk / "w.duckdb") as db:
            db.create_run(manifest("r1", ["s"], trials=10))
            # Fill what is left of the disk, so that the first session cannot be written.
            with contextlib.suppress(OSError), ballast.open("wb", buffering=0) as out:
                while out.write(b"\0" * 4096):
                    pass
            writer = GroupWriter(db)
            sleeping = asyncio.ensure_future(asyncio.sleep(30))
            guarded = asyncio.create_task(writer.guard(sleeping))
            await asyncio.sleep(0)  # the guard is waiting
            with pytest.raises(StoreError):
                await writer.write(session("r1", "s", 0))
            with pytest.raises(StoreError) as stopped:
                await asyncio.wait_for(guarded, 5)
            assert stopped.value is writer.failure
            assert sleeping.cancelled()
            writer.close()

    asyncio.run(scenario())


def test_a_writer_that_cannot_write_at_all_tells_every_session_and_logs_nothing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # Its thread is gone (closed): the batch under way and every later session hear why;
    # before, the writer's own task also ended with the error, logged as never retrieved.
    async def scenario() -> None:
        with Store.open(tmp_path / "w.duckdb") as db:
            db.create_run(manifest("r1", ["s"], trials=10))
            writer = GroupWriter(db)
            writer.close()
            with pytest.raises(RuntimeError) as first:
                await writer.write(session("r1", "s", 0))
            assert writer.failure is first.value
            with pytest.raises(RuntimeError) as later:
                await asyncio.wait_for(writer.write(session("r1", "s", 1)), 5)
            assert later.value is first.value
            assert db.session_rows("r1") == []

    with caplog.at_level(logging.ERROR, logger="asyncio"):
        asyncio.run(scenario())
        gc.collect()
    assert not [r for r in caplog.records if "never retrieved" in r.getMessage()]
