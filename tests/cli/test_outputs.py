"""`-o` of `report`, `export` and `score --format bfcl` never lands on the store or an input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

import sessionproof.suites.bfcl as bfcl
from sessionproof.cli._internal import app

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(bfcl.__file__).parent / "data"
Q = DATA / "BFCL_v4_simple_python.json"
A = DATA / "possible_answer" / "BFCL_v4_simple_python.json"
runner = CliRunner()


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}"}
    return subprocess.run(
        [sys.executable, "-m", "sessionproof.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=120,
        check=False,
    )


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A store holding one small oracle run of the demo suite."""
    store = tmp_path_factory.mktemp("outputs") / "s.duckdb"
    result = runner.invoke(
        app,
        ["run", "--model", "oracle", "--limit", "2", "--store", str(store), "--json",
         "--no-report"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return store, str(json.loads(result.stdout)["run_id"])


def _sessions(store: Path) -> int:
    con = duckdb.connect(str(store), read_only=True)
    try:
        row = con.execute("select count(*) from sessions").fetchone()
    finally:
        con.close()
    assert row is not None
    return int(row[0])


def _spellings(store: Path) -> list[str]:
    """The store named as given, relative, through `..`, through a symlink, and its WAL."""
    link = store.parent / "alias.duckdb"
    if not link.exists():
        link.symlink_to(store)
    return [
        str(store),
        store.name,
        f"../{store.parent.name}/{store.name}",
        link.name,
        store.name + ".wal",
    ]


@pytest.mark.slow
@pytest.mark.parametrize("command", ["report", "otlp-json", "otlp-proto", "bfcl"])
def test_output_onto_the_store_is_refused_and_the_store_kept(
    stored: tuple[Path, str], command: str
) -> None:
    store, run_id = stored
    before = store.read_bytes()
    sessions = _sessions(store)
    outputs = tmp = store.parent / "out.jsonl"
    tmp.write_text(json.dumps({"id": "simple_python_0", "model_output_decoded": []}) + "\n")
    for target in _spellings(store):
        if command == "report":
            argv = ["report", run_id, "-o", target, "--store", store.name]
        elif command == "bfcl":
            argv = ["score", str(outputs), "--format", "bfcl", "--questions", str(Q),
                    "--answers", str(A), "-o", target, "--store", store.name]  # fmt: skip
        else:
            argv = ["export", run_id, "--format", command, "-o", target, "--store", store.name]
        done = _cli(*argv, cwd=store.parent)
        assert done.returncode == 2, (target, done.stdout, done.stderr)
        assert "is the store" in done.stderr and "Traceback" not in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr
        assert not (store.parent / (store.name + ".wal")).exists()
    assert store.read_bytes() == before
    assert _sessions(store) == sessions


@pytest.mark.slow
def test_score_output_onto_its_answers_is_refused(tmp_path: Path) -> None:
    answers = tmp_path / "answers.json"
    answers.write_bytes(A.read_bytes())
    outputs = tmp_path / "out.jsonl"
    outputs.write_text(json.dumps({"id": "simple_python_0", "model_output_decoded": []}) + "\n")
    done = _cli(
        "score", str(outputs), "--format", "bfcl", "--questions", str(Q), "--answers",
        str(answers), "-o", "./answers.json", "--store", str(tmp_path / "s.duckdb"),
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 2 and "is an input file" in done.stderr
    assert answers.read_bytes() == A.read_bytes()


def test_a_report_elsewhere_is_still_written(stored: tuple[Path, str], tmp_path: Path) -> None:
    store, run_id = stored
    target = tmp_path / "r.html"
    result = runner.invoke(app, ["report", run_id, "-o", str(target), "--store", str(store)])
    assert result.exit_code == 0, result.output
    assert target.read_text(encoding="utf-8").lstrip().lower().startswith("<!doctype html")
