"""What `sessionproof --help` loads: the commands are declared without their implementations,
and a help text that reads a registry is built when that command's help is shown."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import sessionproof

_SRC = str(Path(sessionproof.__file__).parents[1])

# `sessionproof --help` loaded numpy, DuckDB, pydantic, YAML, httpx and every sessionproof
# package below the CLI (0.9 s of start-up) before the commands imported what they need when
# they run; scipy, scikit-learn, the provider and MCP SDKs and telemetry were already kept
# out, and stay out.
NOT_FOR_HELP = (
    "numpy",
    "scipy",
    "sklearn",
    "duckdb",
    "pydantic",
    "yaml",
    "httpx",
    "openai",
    "anthropic",
    "mcp",
    "opentelemetry",
    "sessionproof.records",
    "sessionproof.store",
    "sessionproof.scoring",
    "sessionproof.importers",
    "sessionproof.report",
    "sessionproof.runs",
    "sessionproof.engine",
    "sessionproof.agents",
    "sessionproof.suites",
    "sessionproof.domains",
    "sessionproof.telemetry",
    "sessionproof.executors",
)


def _cli_modules(*args: str) -> tuple[str, list[str]]:
    """The output of `sessionproof ARGS` in a fresh interpreter, and the modules it loaded."""
    code = (
        "import json, sys\n"
        f"sys.argv = ['sessionproof', *{list(args)!r}]\n"
        "from sessionproof.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "sys.stderr.write('\\nMODULES ' + json.dumps(sorted(sys.modules)))\n"
    )
    env = {**os.environ, "PYTHONPATH": _SRC, "COLUMNS": "200"}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    modules: list[str] = json.loads(done.stderr.rsplit("MODULES ", 1)[1])
    return done.stdout, modules


def _loaded(modules: list[str], name: str) -> bool:
    return any(m == name or m.startswith(name + ".") for m in modules)


def test_help_lists_every_command_without_loading_their_implementations() -> None:
    out, modules = _cli_modules("--help")
    for command in ("import", "run", "score", "show", "report", "rerun", "serve", "schema"):
        assert f" {command} " in out
    assert "Run a suite of multi-turn scenarios against a model; store every session." in out
    assert [name for name in NOT_FOR_HELP if _loaded(modules, name)] == []


def test_import_sessionproof_leaves_the_records_until_first_use() -> None:
    code = (
        "import sys, sessionproof\n"
        "before = 'pydantic' in sys.modules or 'sessionproof.records' in sys.modules\n"
        "from sessionproof.records import Outcome\n"
        "print(before, sessionproof.Outcome is Outcome, 'Session' in dir(sessionproof))\n"
    )
    env = {**os.environ, "PYTHONPATH": _SRC}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert done.stdout.split() == ["False", "True", "True"]
    for name in sessionproof.__all__:
        assert getattr(sessionproof, name) is not None, name


def test_a_commands_own_help_still_reads_the_registries_when_shown() -> None:
    from sessionproof.agents._internal import accepted_specs
    from sessionproof.importers import format_names
    from sessionproof.runs._internal import SCORE_FORMATS
    from sessionproof.suites._internal import BUILTIN_SUITES

    run_help, run_modules = _cli_modules("run", "--help")
    assert "Models:" in run_help and "Suites:" in run_help
    assert all(suite in run_help for suite in BUILTIN_SUITES)
    assert accepted_specs().split(",")[0].strip() in run_help
    assert _loaded(run_modules, "sessionproof.agents")
    score_help, _ = _cli_modules("score", "--help")
    assert " | ".join(SCORE_FORMATS) in score_help
    import_help, _ = _cli_modules("import", "--help")
    assert "auto | " + " | ".join(format_names()) in import_help
    assert "the formats this installation" not in score_help + import_help


# Loaded by `score` of a tau2 file before (through `runs` and `scoring` importing every
# submodule), needed only to run an agent, compare arms or rerun.
NOT_FOR_SCORE = (
    "sessionproof.executors",
    "sessionproof.engine",
    "sessionproof.rerun",
    "sessionproof.conditions",
    "sessionproof.faults",
    "sessionproof.guard",
    "sessionproof.users",
    "sessionproof.runs._run",
    "sessionproof.runs._metrics",
    "sessionproof.scoring._arms",
    "sessionproof.scoring._metrics",
    # Judged by the DB and the actions (no --judge), with --no-report: no agent, no HTML
    # report, no telemetry or pattern mining; a file without `domains:` needs no tool source
    # of a team's own (httpx), no JSON Schema validation and no YAML; nor the numerical
    # libraries. Each of these but the last four was loaded by every `score` once (0.2-0.3 s
    # together).
    "sessionproof.agents",
    "sessionproof.report",
    # Detection asks the OTLP formats' sniffs (`telemetry._formats_plugin`, a registered
    # plug-in), so the lazy telemetry package loads; its readers and writers must not.
    "sessionproof.telemetry._rebuild",
    "sessionproof.telemetry._spans",
    "sessionproof.telemetry._otlp",
    "sessionproof.telemetry._live",
    "opentelemetry",
    "sessionproof.patterns",
    "sessionproof.domains.sources",
    "asyncio",
    "httpx",
    "jsonschema",
    "yaml",
    "scipy",
    "sklearn",
    "ray",
    "pandas",
    "pyarrow",
)


def test_score_of_a_tau2_file_loads_only_what_judging_it_needs(tmp_path: Path) -> None:
    from tests.suites.tau2._data import RETAIL_GPT

    store = tmp_path / "s.duckdb"
    out, modules = _cli_modules(
        "score", str(RETAIL_GPT), "--store", str(store), "--no-report", "--json"
    )
    scored = json.loads(out)
    # It did judge and store them: the work is all there, only the unused modules are not.
    assert scored["sessions"] == 40 and scored["run_id"]
    assert store.exists()
    assert _loaded(modules, "sessionproof.suites.tau2.retail")
    assert _loaded(modules, "sessionproof.store")
    assert [name for name in NOT_FOR_SCORE if _loaded(modules, name)] == []


def test_the_lazy_packages_still_export_every_name_and_submodule() -> None:
    import importlib

    for name in ("sessionproof", "sessionproof.runs", "sessionproof.scoring"):
        package = importlib.import_module(name)
        module_of = package._MODULE_OF
        assert set(module_of) <= set(package.__all__) <= {*module_of, "__version__"}, name
        for export in module_of:
            source = importlib.import_module(module_of[export], name)
            assert getattr(package, export) is getattr(source, export), (name, export)
        assert set(package.__all__) <= set(dir(package))
    runs = importlib.import_module("sessionproof.runs")
    assert runs._run is importlib.import_module("sessionproof.runs._run")
    assert not hasattr(runs, "_no_such_module") and not hasattr(runs, "no_such_name")


# Loaded by the report that `score` writes by default, through the rerun planner (a rerun's
# report only), the drift and guard checks (when a schema is first checked) and the users
# package (its simulated user's model adapters).
NOT_FOR_A_SCORES_REPORT = (
    "sessionproof.agents",
    "sessionproof.rerun",
    "sessionproof.engine",
    "sessionproof.executors",
    "sessionproof.domains.sources",
    "httpx",
    "yaml",
)


def test_the_report_score_writes_loads_no_rerun_or_engine(tmp_path: Path) -> None:
    from tests.suites.tau2._data import RETAIL_GPT

    store = tmp_path / "s.duckdb"
    out, modules = _cli_modules("score", str(RETAIL_GPT), "--store", str(store), "--json")
    assert json.loads(out)["sessions"] == 40
    reports = list((tmp_path / "s-reports").glob("*.html"))
    assert len(reports) == 1 and "<html" in reports[0].read_text(encoding="utf-8")[:2000]
    assert _loaded(modules, "sessionproof.report") and _loaded(modules, "sessionproof.patterns")
    assert [name for name in NOT_FOR_A_SCORES_REPORT if _loaded(modules, name)] == []
