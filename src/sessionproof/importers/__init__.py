"""Importers: transcript files in foreign formats → sessions (and the scenarios they were
graded against), with a clear error per broken record and the rest imported."""

from ._common import ImportedSession, ImportResult, RecordError, ReportedVerdict, SessionBuilder
from ._detect import FORMATS, detect_format, import_file
from ._json import MAX_DEPTH, load_json, too_deep, without_bom
from ._jsonl import import_jsonl
from ._tau2 import import_tau2
from ._tau2task import Tau2Task, render_instructions, scenario_from_task
from ._taubench import guess_domain, import_taubench, taubench_domain
from ._taubench_task import TauBenchTask, scenario_from_any_task, scenario_from_taubench

__all__ = [
    "FORMATS",
    "MAX_DEPTH",
    "ImportResult",
    "ImportedSession",
    "RecordError",
    "ReportedVerdict",
    "SessionBuilder",
    "Tau2Task",
    "TauBenchTask",
    "detect_format",
    "guess_domain",
    "import_file",
    "import_jsonl",
    "import_tau2",
    "import_taubench",
    "load_json",
    "render_instructions",
    "scenario_from_any_task",
    "scenario_from_task",
    "scenario_from_taubench",
    "taubench_domain",
    "too_deep",
    "without_bom",
]
