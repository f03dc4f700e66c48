"""`RerunConfig` holds rerun's options once: `sessionproof rerun` builds one, `runs.rerun` takes
one or its fields, both store the same reruns, and a bad option is one `ConfigError` line."""

from __future__ import annotations

import inspect
import typing
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sessionproof import runs
from sessionproof.cli._internal import app
from sessionproof.errors import ConfigError
from sessionproof.runs import RerunConfig
from sessionproof.runs._rerun import RerunSettings
from sessionproof.store import Store
from tests.rerun._files import AIRLINE_GPT
from tests.runs.test_parity import _stored

runner = CliRunner()


def _keys(typed: type) -> set[str]:
    return set(typed.__required_keys__) | set(typed.__optional_keys__)  # type: ignore[attr-defined]


def test_rerun_takes_exactly_rerun_config_s_fields() -> None:
    assert _keys(RerunSettings) == set(RerunConfig.model_fields) - {"path", "model"}
    settings = inspect.signature(runs.rerun).parameters["settings"]
    assert settings.kind is inspect.Parameter.VAR_KEYWORD
    unpacked = eval(settings.annotation, vars(inspect.getmodule(runs.rerun)))
    assert typing.get_origin(unpacked) is typing.Unpack
    assert typing.get_args(unpacked) == (RerunSettings,)


def test_the_cli_and_the_api_store_the_same_reruns(tmp_path: Path) -> None:
    cli_store, api_store = tmp_path / "cli.duckdb", tmp_path / "api.duckdb"
    args = [str(AIRLINE_GPT), "--model", "oracle", "--trials", "2", "--limit", "3"]
    args += ["--seed", "4", "--max-steps", "30", "--store", str(cli_store), "--no-report"]
    done = runner.invoke(app, ["rerun", *args, "--json"])
    assert done.exit_code == 0, done.output
    api = runs.rerun(
        AIRLINE_GPT, "oracle", trials=2, limit=3, seed=4, max_steps=30, store=api_store
    )
    with Store.open(cli_store, read_only=True) as db:
        (listed,) = db.list_runs()
        cli_run = db.get_run(listed.run_id)
    cli = _stored(cli_store, cli_run.run_id)
    assert len(cli) == 6
    assert cli == _stored(api_store, api.run_id)
    with Store.open(api_store, read_only=True) as db:
        manifest = db.get_run(api.run_id)
    assert manifest.command == cli_run.command == "rerun"
    assert (manifest.trials, manifest.seed) == (cli_run.trials, cli_run.seed) == (2, 4)


def test_a_config_object_reruns_like_its_fields(tmp_path: Path) -> None:
    config = RerunConfig(path=AIRLINE_GPT, model="oracle", limit=2, store=None)
    report = runs.rerun(config)
    assert len(report.transcripts) == 2 and report.store is None


@pytest.mark.parametrize(
    ("settings", "says"),
    [
        ({"fmt": "xml"}, "--format must be auto or one of"),
        ({"trials": 0}, "invalid rerun configuration: trials: Input should be greater than"),
        ({"tirals": 2}, "invalid rerun configuration: tirals: Extra inputs are not permitted"),
        ({"label_from": "score>=high"}, "--label-from 'score>=high'"),
        ({"concurrency": "many"}, "invalid rerun configuration: concurrency:"),
    ],
)
def test_a_bad_rerun_option_is_one_config_error_line(
    tmp_path: Path, settings: dict[str, object], says: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        runs.rerun(AIRLINE_GPT, "oracle", store=tmp_path / "s.duckdb", **settings)  # type: ignore[arg-type]
    assert says in str(caught.value) and "\n" not in str(caught.value)
    assert not (tmp_path / "s.duckdb").exists()  # refused before anything was written


def test_a_config_and_its_fields_together_are_refused() -> None:
    config = RerunConfig(path=AIRLINE_GPT, model="oracle")
    with pytest.raises(ConfigError, match="not both"):
        runs.rerun(config, trials=2)
    with pytest.raises(ConfigError, match="candidate"):
        runs.rerun(AIRLINE_GPT)
