"""Reading a trace or a store never runs code (issue 41 item 17).

An OTLP trace names its suite in `sessionproof.run.suite`. A user's suite is code: loading it
imports its `python:` modules and starts its `mcp:` commands. Each test here plants a project
whose toolkit module writes a marker file when imported (and whose MCP command writes one
when started), makes a real trace of a real run that names that project, and checks that
`import`, `score`, `patterns`, `rerun`, `show --metrics`, `report` and `export` of it never
write the marker; naming the suite with `--suite` is what loads it.
"""

from __future__ import annotations

import contextlib
import json
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import sessionproof
from sessionproof.cli._internal import app
from sessionproof.errors import SessionproofError
from sessionproof.runs import export_traces
from sessionproof.suites import load_suite

runner = CliRunner()

_TOOLKIT = """\
from pathlib import Path

Path({marker!r}).write_text("imported")

from pydantic import BaseModel

from sessionproof.domains import Toolkit, tool


class DB(BaseModel):
    pings: int = 0


class Tools(Toolkit[DB]):
    \"\"\"Answers pings.\"\"\"

    @tool()
    def ping(self) -> str:
        \"\"\"Answer pong.\"\"\"
        return "pong"
"""

_PROJECT = """\
domains:
  evil:
    python: {module}:Tools
    state: {{}}
  evil-mcp:
    mcp: {{command: [{python}, -c, "open({mcp_marker!r}, 'w').write('started')"]}}
scenarios:
  - id: ping
    domain: evil
    user: {{turns: ["ping please"]}}
    criteria:
      gold_actions: [{{tool: ping}}]
  - id: ping-mcp
    domain: evil-mcp
    user: {{turns: ["ping please"]}}
    criteria:
      expected_calls: [{{tool: ping}}]
"""


def _project(tmp_path: Path) -> tuple[Path, list[Path]]:
    """A project whose module (unique name: never imported by this process before) and MCP
    command each leave a marker when they run; its directory and the markers."""
    module = f"evil_{uuid.uuid4().hex}"
    marker = tmp_path / "imported.marker"
    mcp_marker = tmp_path / "started.marker"
    project = tmp_path / "project"
    project.mkdir()
    (project / f"{module}.py").write_text(_TOOLKIT.format(marker=str(marker)), encoding="utf-8")
    (project / "suite.yaml").write_text(
        _PROJECT.format(module=module, python=sys.executable, mcp_marker=str(mcp_marker)),
        encoding="utf-8",
    )
    return project, [marker, mcp_marker]


def _trace_naming(tmp_path: Path, suite: Path) -> Path:
    """A real OTLP-JSON export of a real demo run, whose resource names `suite` (what a trace
    of a run of that project says)."""
    store = tmp_path / "origin.duckdb"
    done = sessionproof.run_suite("demo", "oracle", limit=2, store=store)
    trace = tmp_path / "trace.json"
    export_traces(done.run_id, store=store, output=trace, content=True)
    data: dict[str, Any] = json.loads(trace.read_text(encoding="utf-8"))
    for block in data["resourceSpans"]:
        for attr in block["resource"]["attributes"]:
            if attr["key"] == "sessionproof.run.suite":
                attr["value"] = {"stringValue": str(suite)}
    trace.write_text(json.dumps(data), encoding="utf-8")
    return trace


def _cli(*args: str) -> Any:
    result = runner.invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


@pytest.mark.slow
def test_reading_a_trace_that_names_a_project_runs_none_of_its_code(tmp_path: Path) -> None:
    project, markers = _project(tmp_path)
    trace = _trace_naming(tmp_path, project.resolve())
    assert "sessionproof.run.suite" in trace.read_text(encoding="utf-8")
    store = tmp_path / "s.duckdb"

    imported = _cli("import", str(trace), "--store", str(store), "--json")
    assert imported.exit_code == 0, imported.output
    run_id = json.loads(imported.stdout)["run_id"]
    assert not any(m.exists() for m in markers), "import ran the project's code"

    shown = _cli("show", run_id, "--store", str(store), "--metrics", "--json")
    assert shown.exit_code == 0, shown.output
    source = json.loads(shown.stdout)["scenarios"]["source"]
    assert "not loaded" in source
    _cli("report", run_id, "--store", str(store), "-o", str(tmp_path / "r.html"))
    assert (tmp_path / "r.html").is_file()
    _cli(
        "export", run_id, "--store", str(store), "--format", "otlp-json", "-o", str(tmp_path / "e")
    )
    scored = _cli("score", str(trace), "--store", str(store), "--json", "--no-report")
    assert scored.exit_code in (0, 1), scored.output
    mined = _cli("patterns", str(trace), "--json")
    assert mined.exit_code == 0, mined.output
    scored_id = json.loads(scored.stdout)["run_id"]
    _cli("show", scored_id, "--store", str(store), "--metrics", "--json")
    rerun = _cli(
        "rerun",
        str(trace),
        "--model",
        "oracle",
        "--domain",
        "demo",
        "--store",
        str(store),
        "--json",
        "--no-report",
    )
    assert rerun.exit_code in (0, 1), rerun.output
    _cli("show", json.loads(rerun.stdout)["run_id"], "--store", str(store), "--metrics")

    assert not any(m.exists() for m in markers), [str(m) for m in markers if m.exists()]


def test_a_suite_is_loaded_when_the_user_names_it(tmp_path: Path) -> None:
    """The control: loading the project (what `--suite` does) writes both markers, so the
    test above would see a load."""
    project, markers = _project(tmp_path)
    with contextlib.suppress(SessionproofError):  # the MCP command is no server
        load_suite(str(project))
    assert all(m.exists() for m in markers)


@pytest.mark.slow
@pytest.mark.parametrize("command", ["import", "score"])
def test_a_store_row_of_an_import_never_loads_the_suite_it_names(
    tmp_path: Path, command: str
) -> None:
    """`show --metrics` of an imported run reads the manifest's suite (the trace's claim) and
    must not load it."""
    project, markers = _project(tmp_path)
    trace = _trace_naming(tmp_path, project.resolve())
    store = tmp_path / "s.duckdb"
    args = [command, str(trace), "--store", str(store), "--json"]
    made = _cli(*(args + (["--no-report"] if command == "score" else [])))
    run_id = json.loads(made.stdout)["run_id"]
    _cli("show", run_id, "--store", str(store), "--metrics", "--json")
    _cli("show", run_id, "--store", str(store))
    assert not any(m.exists() for m in markers)
