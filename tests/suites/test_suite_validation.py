"""Scenarios of a suite file are checked up front, and its content hash never crashes."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from sessionproof.cli._internal import app
from sessionproof.errors import InputFileError
from sessionproof.suites import Suite, load_suite

runner = CliRunner()


def _scenario(sid: str, **extra: object) -> dict[str, object]:
    return {"id": sid, "domain": "demo", "user": {"turns": ["hi"]}, **extra}


def _write(tmp_path: Path, scenarios: list[dict[str, object]]) -> Path:
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(scenarios))
    return path


def _error(path: Path) -> str:
    with pytest.raises(InputFileError) as caught:
        load_suite(str(path))
    return str(caught.value)


def test_an_unknown_domain_is_found_at_load_naming_scenario_and_field(tmp_path: Path) -> None:
    path = _write(tmp_path, [_scenario("ok"), _scenario("bad", domain="nope")])
    message = _error(path)
    assert str(path) in message and "scenario #1 (bad)" in message
    assert "domain" in message and "'nope'" in message and "demo" in message


@pytest.mark.parametrize("where", ["gold_actions", "forbidden"])
def test_criteria_naming_a_tool_the_domain_lacks_are_refused(tmp_path: Path, where: str) -> None:
    bad = _scenario("s", criteria={where: [{"tool": "get_ordr"}]})
    message = _error(_write(tmp_path, [bad]))
    assert f"criteria.{where}.0.tool" in message and "'get_ordr'" in message
    assert "get_order" in message  # the close match is suggested


@pytest.mark.parametrize("steps", [0, -1])
def test_max_steps_below_one_is_refused(tmp_path: Path, steps: int) -> None:
    message = _error(_write(tmp_path, [_scenario("s", max_steps=steps)]))
    assert "scenario #0 (s)" in message and "max_steps" in message


def test_max_steps_one_is_kept(tmp_path: Path) -> None:
    (scenario,) = load_suite(str(_write(tmp_path, [_scenario("s", max_steps=1)]))).scenarios
    assert scenario.max_steps == 1


def test_content_hash_survives_big_integers_and_lone_surrogates(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_text(
        "- id: s\n  domain: demo\n  user: {turns: [hi]}\n"
        '  metadata: {n: 123456789012345678901234567890, t: "\\ud800", k: {1: x}}\n'
    )
    suite = load_suite(str(big))
    first = suite.content_hash()
    assert first == load_suite(str(big)).content_hash()
    changed = suite.scenarios[0].model_copy(
        update={"metadata": {**suite.scenarios[0].metadata, "n": 123456789012345678901234567891}}
    )
    assert Suite("big", [changed]).content_hash() != first


def test_content_hash_of_ordinary_suites_is_unchanged() -> None:
    # Runs stored before the hardening must still resume: the plain path hashes as before.
    import hashlib

    import orjson

    suite = load_suite("demo")
    blob = orjson.dumps(
        [s.model_dump(mode="json") for s in suite.scenarios], option=orjson.OPT_SORT_KEYS
    )
    assert suite.content_hash() == hashlib.blake2b(blob, digest_size=16).hexdigest()


def test_a_run_of_an_invalid_suite_creates_no_run(tmp_path: Path) -> None:
    path = _write(tmp_path, [_scenario("a"), _scenario("b"), _scenario("c", domain="nope")])
    store = tmp_path / "s.duckdb"
    result = runner.invoke(
        app, ["run", "--suite", str(path), "--model", "oracle", "--store", str(store)]
    )
    assert result.exit_code != 0
    assert "scenario #2 (c)" in str(result.exception) + result.output
    if store.exists():
        con = duckdb.connect(str(store), read_only=True)
        try:
            assert con.execute("select count(*) from runs").fetchone() == (0,)
            assert con.execute("select count(*) from sessions").fetchone() == (0,)
        finally:
            con.close()
