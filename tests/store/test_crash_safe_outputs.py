"""Outputs survive a write that fails part-way, and killed readers leave no store copies
behind (issue 41.24)."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sessionproof.cli._internal import app
from sessionproof.store import Store

from .test_store_snapshot import live_store

pytestmark = pytest.mark.slow  # most tests here take seconds each

__all__ = ["live_store"]
ROOT = Path(__file__).resolve().parents[2]
LIMIT = 4096
"""The largest file the child may write (RLIMIT_FSIZE): a report or trace is far larger."""


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    store = tmp_path_factory.mktemp("outputs") / "s.duckdb"
    result = CliRunner().invoke(
        app,
        ["run", "--model", "oracle", "--limit", "2", "--store", str(store), "--json",
         "--no-report"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return store, str(json.loads(result.stdout)["run_id"])


def _small_files() -> None:
    """In the child: writes past LIMIT bytes fail with EFBIG (no SIGXFSZ), as on a full disk."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, LIMIT))


def _cli_out_of_space(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}"}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "sessionproof.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        preexec_fn=_small_files,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize("command", ["report", "otlp-json", "otlp-proto"])
def test_a_write_failing_part_way_keeps_the_earlier_output(
    stored: tuple[Path, str], tmp_path: Path, command: str
) -> None:
    store, run_id = stored
    target = tmp_path / "out.file"
    target.write_text("the earlier, good output\n")
    if command == "report":
        argv = ["report", run_id, "-o", str(target), "--store", str(store)]
    else:
        argv = ["export", run_id, "--format", command, "-o", str(target), "--store", str(store)]
    done = _cli_out_of_space(*argv)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    # Before: the file was opened in place, so the failed write left 4 KiB of a new file.
    assert target.read_text() == "the earlier, good output\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.file"]  # no partial file left


def test_an_output_is_still_written_when_there_is_room(
    stored: tuple[Path, str], tmp_path: Path
) -> None:
    store, run_id = stored
    target = tmp_path / "trace.json"
    target.write_text("old")
    runner = CliRunner()
    done = runner.invoke(
        app, ["export", run_id, "--format", "otlp-json", "-o", str(target), "--store", str(store)]
    )
    assert done.exit_code == 0, done.output
    assert "resourceSpans" in json.loads(target.read_text())


@pytest.fixture
def own_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A private temporary folder, for this process and its children."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setenv("TMPDIR", str(folder))
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    yield folder


def test_a_killed_reader_s_snapshot_is_removed_by_the_next_reader(
    live_store: tuple[Path, int], own_tmp: Path
) -> None:
    path, _ = live_store
    reader = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, time; from sessionproof.store import Store; "
         "s = Store.open_for_reading(sys.argv[1]); print(s.snapshot_dir, flush=True); "
         "time.sleep(60)",
         str(path)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
        stdout=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    assert reader.stdout is not None
    left = Path(reader.stdout.readline().strip())
    reader.kill()
    reader.wait(timeout=10)
    assert left.parent == own_tmp and (left / path.name).exists()  # a whole store copy
    with Store.open_for_reading(path) as store:
        assert store.snapshot_dir is not None and store.snapshot_dir.exists()
        # Before: every killed read left its copy for good.
        assert not left.exists()
    assert list(own_tmp.iterdir()) == []


def test_a_reports_default_file_survives_a_failed_rewrite(stored: tuple[Path, str]) -> None:
    """`report RUN` with no `-o` writes the folder beside the store through `runs.report`,
    which must write beside the file and rename as well."""
    store, run_id = stored
    first = subprocess.run(
        [sys.executable, "-m", "sessionproof.cli", "report", run_id, "--store", str(store)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}"},
        timeout=120,
        check=False,
    )
    assert first.returncode == 0, first.stderr
    target = Path(first.stdout.strip())
    good = target.read_bytes()
    assert len(good) > LIMIT
    done = _cli_out_of_space("report", run_id, "--store", str(store))
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    assert target.read_bytes() == good
    assert [p.name for p in target.parent.iterdir()] == [target.name]
