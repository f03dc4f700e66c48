"""The library's use cases: run, resume, score, import, rerun, export, patterns, report,
compare, and the metrics of a stored run.

The CLI and the Python API (`sessionproof.run_suite`) both call these with the same typed
configurations (`RunConfig`, `RerunConfig`, `ImportConfig`, `ExportConfig`, `ServeConfig`),
so a use case behaves the same whichever way it is started:

- `run(RunConfig(...))` runs a suite and stores each session as it ends; `resume(run_id)`
  finishes a killed run with the settings of its manifest. Both return a `RunReport`.
- `metrics(run_id)` computes every metric of a stored run per arm (`RunMetrics`);
  `patterns(run_id or path)` mines the sequences that precede failure (`PatternsRun`).
- `import_traces(path)` reads a trace or transcript file in as a stored run;
  `export_traces(run_id, ...)` sends a stored run out as OpenTelemetry traces (a run sends
  its sessions live with `RunConfig.export`).
- `score(path)` judges recorded transcripts (or BFCL outputs) offline; `rerun(path, model)`
  replays their user side against a candidate model (`RerunConfig`).
- `report(run_ids)` writes the HTML report; `compare(a, b)` sets two runs side by side.
"""

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from ..executors import hooks_factory
    from ._config import (
        LOCAL_CONCURRENCY,
        REMOTE_CONCURRENCY,
        TOOL_MODES,
        RunConfig,
        ToolMode,
        arm_names,
        default_concurrency,
        model_name,
        suite_reference,
    )
    from ._export import ExportConfig, export_traces
    from ._import import ImportConfig, TraceImport, import_traces
    from ._live import OtlpExport
    from ._metrics import RunMetrics, ScenarioSource, metrics, scenarios_for
    from ._options import RunSettings
    from ._patterns import PatternsRun, default_arm, patterns
    from ._report import REPORT_NAME, compare, default_report_path, report
    from ._rerun import RerunConfig, rerun
    from ._results import RunReport, RunStart
    from ._resume import RESUME_KEEPS, aresume, refuse_given, resume, resumed_config
    from ._run import StartHook, arun, run
    from ._score import SCORE_FORMATS, score
    from ._serve import SERVED_MODEL, ServeConfig, ServeReport, aserve, find_scenario, serve

# Imported on first use (PEP 562): `score` needs neither the executors nor the metrics, the
# report or the serving of a scenario.
_MODULE_OF: dict[str, str] = {
    "ExportConfig": "._export",
    "ImportConfig": "._import",
    "TraceImport": "._import",
    "export_traces": "._export",
    "import_traces": "._import",
    "LOCAL_CONCURRENCY": "._config",
    "OtlpExport": "._live",
    "PatternsRun": "._patterns",
    "REMOTE_CONCURRENCY": "._config",
    "REPORT_NAME": "._report",
    "RESUME_KEEPS": "._resume",
    "RerunConfig": "._rerun",
    "RunConfig": "._config",
    "RunMetrics": "._metrics",
    "RunSettings": "._options",
    "RunReport": "._results",
    "RunStart": "._results",
    "SCORE_FORMATS": "._score",
    "SERVED_MODEL": "._serve",
    "ScenarioSource": "._metrics",
    "ServeConfig": "._serve",
    "ServeReport": "._serve",
    "StartHook": "._run",
    "TOOL_MODES": "._config",
    "ToolMode": "._config",
    "aresume": "._resume",
    "arm_names": "._config",
    "arun": "._run",
    "aserve": "._serve",
    "compare": "._report",
    "default_arm": "._patterns",
    "default_concurrency": "._config",
    "default_report_path": "._report",
    "find_scenario": "._serve",
    "hooks_factory": "..executors",
    "metrics": "._metrics",
    "model_name": "._config",
    "patterns": "._patterns",
    "refuse_given": "._resume",
    "report": "._report",
    "rerun": "._rerun",
    "resume": "._resume",
    "resumed_config": "._resume",
    "run": "._run",
    "scenarios_for": "._metrics",
    "score": "._score",
    "serve": "._serve",
    "suite_reference": "._config",
}

__all__ = [
    "LOCAL_CONCURRENCY",
    "REMOTE_CONCURRENCY",
    "REPORT_NAME",
    "RESUME_KEEPS",
    "SCORE_FORMATS",
    "SERVED_MODEL",
    "TOOL_MODES",
    "ExportConfig",
    "ImportConfig",
    "OtlpExport",
    "PatternsRun",
    "RerunConfig",
    "RunConfig",
    "RunMetrics",
    "RunReport",
    "RunSettings",
    "RunStart",
    "ScenarioSource",
    "ServeConfig",
    "ServeReport",
    "StartHook",
    "ToolMode",
    "TraceImport",
    "aresume",
    "arm_names",
    "arun",
    "aserve",
    "compare",
    "default_arm",
    "default_concurrency",
    "default_report_path",
    "export_traces",
    "find_scenario",
    "hooks_factory",
    "import_traces",
    "metrics",
    "model_name",
    "patterns",
    "refuse_given",
    "report",
    "rerun",
    "resume",
    "resumed_config",
    "run",
    "scenarios_for",
    "score",
    "serve",
    "suite_reference",
]

__getattr__, __dir__ = lazy_exports(__name__, _MODULE_OF, submodules=True)
