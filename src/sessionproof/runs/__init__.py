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
- `audit(suite)` checks a task set before anyone trusts a number from it (oracle, gold
  replay, criteria, do-nothing and read-only agents, gold state; with a store, tasks never
  passed and verdicts that flip).
- `report(run_ids)` writes the HTML report; `compare(a, b)` sets two runs side by side;
  `gate(baseline, candidate)` decides whether a candidate may replace a baseline.
"""

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from ._audit import audit
    from ._config import RunConfig
    from ._export import ExportConfig, export_traces
    from ._gate import agate, gate
    from ._gate_result import GateResult
    from ._import import ImportConfig, import_traces
    from ._live import OtlpExport
    from ._metrics import RunMetrics, metrics
    from ._options import RunSettings
    from ._patterns import patterns
    from ._report import compare, report
    from ._rerun import RerunConfig, rerun
    from ._results import RunReport
    from ._resume import aresume, resume
    from ._run import arun, run
    from ._score import score
    from ._serve import ServeConfig, aserve, serve

# Imported on first use (PEP 562): `score` needs neither the executors nor the metrics, the
# report or the serving of a scenario.
_MODULE_OF: dict[str, str] = {
    "ExportConfig": "._export",
    "GateResult": "._gate_result",
    "ImportConfig": "._import",
    "OtlpExport": "._live",
    "RerunConfig": "._rerun",
    "RunConfig": "._config",
    "RunMetrics": "._metrics",
    "RunReport": "._results",
    "RunSettings": "._options",
    "ServeConfig": "._serve",
    "agate": "._gate",
    "audit": "._audit",
    "aresume": "._resume",
    "arun": "._run",
    "aserve": "._serve",
    "compare": "._report",
    "export_traces": "._export",
    "gate": "._gate",
    "import_traces": "._import",
    "metrics": "._metrics",
    "patterns": "._patterns",
    "report": "._report",
    "rerun": "._rerun",
    "resume": "._resume",
    "run": "._run",
    "score": "._score",
    "serve": "._serve",
}

__all__ = [
    "ExportConfig",
    "GateResult",
    "ImportConfig",
    "OtlpExport",
    "RerunConfig",
    "RunConfig",
    "RunMetrics",
    "RunReport",
    "RunSettings",
    "ServeConfig",
    "agate",
    "aresume",
    "arun",
    "aserve",
    "audit",
    "compare",
    "export_traces",
    "gate",
    "import_traces",
    "metrics",
    "patterns",
    "report",
    "rerun",
    "resume",
    "run",
    "score",
    "serve",
]

__getattr__, __dir__ = lazy_exports(__name__, _MODULE_OF, submodules=True)
