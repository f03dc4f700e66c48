"""`import_traces` and `export_traces` are use cases in `runs` with typed configs
(`ImportConfig`, `ExportConfig`) that `sessionproof import` / `sessionproof export` build:
the Python path and the CLI path write the same traces and store the same sessions, and a
bad option is one `ConfigError` line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sessionproof import runs
from sessionproof.cli._internal import app
from sessionproof.errors import ConfigError
from sessionproof.runs import (
    ExportConfig,
    ImportConfig,
    RunConfig,
    export_traces,
    import_traces,
)
from sessionproof.runs._export import ExportSettings
from sessionproof.runs._import import ImportSettings
from sessionproof.store import Store
from sessionproof.telemetry._internal import EXPORT_FORMATS
from tests.runs.test_parity import _stored

runner = CliRunner()


def _keys(typed: type) -> set[str]:
    return set(typed.__required_keys__) | set(typed.__optional_keys__)  # type: ignore[attr-defined]


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    store = tmp_path_factory.mktemp("io") / "s.duckdb"
    report = runs.run(RunConfig(model="oracle", limit=3, faults="20%", seed=3, store=store))
    return store, report.run_id


def _spans(path: Path) -> list[tuple[str, str, str]]:
    """(trace id, span id, name) of every span of an OTLP-JSON file, in order."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return [
        (span["traceId"], span["spanId"], span["name"])
        for rs in data["resourceSpans"]
        for ss in rs["scopeSpans"]
        for span in ss["spans"]
    ]


def test_the_settings_are_exactly_the_configs_fields() -> None:
    assert _keys(ImportSettings) == set(ImportConfig.model_fields) - {"path"}
    assert _keys(ExportSettings) == set(ExportConfig.model_fields) - {"run_id"}
    assert runs._export._FORMATS == EXPORT_FORMATS


def test_export_and_import_from_python_and_the_cli_agree(
    stored: tuple[Path, str], tmp_path: Path
) -> None:
    store, run_id = stored
    by_cli, by_api = tmp_path / "cli.json", tmp_path / "api.json"
    done = runner.invoke(app, ["export", run_id, "-o", str(by_cli), "--store", str(store)])
    assert done.exit_code == 0, done.output
    count = export_traces(ExportConfig(run_id=run_id, store=store, output=by_api))
    assert count == len(_spans(by_api)) > 3
    assert _spans(by_cli) == _spans(by_api)

    into_cli, into_api = tmp_path / "ic.duckdb", tmp_path / "ia.duckdb"
    done = runner.invoke(app, ["import", str(by_cli), "--store", str(into_cli), "--json"])
    assert done.exit_code == 0, done.output
    from_cli = json.loads(done.stdout)
    from_api = import_traces(by_api, store=into_api)
    assert _stored(into_cli, from_cli["run_id"]) == _stored(into_api, from_api.run_id)
    assert len(_stored(into_api, from_api.run_id)) == 3
    with Store.open(into_api, read_only=True) as db:
        assert db.get_run(from_api.run_id).command == "import"


@pytest.mark.parametrize(
    ("settings", "says"),
    [
        ({"fmt": "xml", "output": "t.json"}, "--format must be one of otlp-json, otlp-proto"),
        ({}, "say where the traces go"),
        ({"output": "t.json", "compat": "jaeger"}, "--otel-compat must be one of"),
        ({"output": "t.json", "contnet": True}, "invalid export configuration: contnet"),
    ],
)
def test_a_bad_export_option_is_one_config_error_line(
    stored: tuple[Path, str], settings: dict[str, object], says: str
) -> None:
    store, run_id = stored
    with pytest.raises(ConfigError) as caught:
        export_traces(run_id, store=store, **settings)  # type: ignore[arg-type]
    assert says in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("settings", "says"),
    [
        ({"label_from": "score>=high"}, "--label-from 'score>=high'"),
        ({"domian": "retail"}, "invalid import configuration: domian"),
    ],
)
def test_a_bad_import_option_is_one_config_error_line(
    tmp_path: Path, settings: dict[str, object], says: str
) -> None:
    trace = tmp_path / "t.json"
    trace.write_text("{}", encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        import_traces(trace, store=tmp_path / "s.duckdb", **settings)  # type: ignore[arg-type]
    assert says in str(caught.value) and "\n" not in str(caught.value)
    assert not (tmp_path / "s.duckdb").exists()


def test_an_export_config_keeps_its_headers_out_of_its_repr(tmp_path: Path) -> None:
    config = ExportConfig(run_id="r", endpoint="http://127.0.0.1:1", headers={"k": "Bearer zz9"})
    assert "zz9" not in repr(config)
