"""Importers: transcript files in foreign formats → sessions (and the scenarios they were
graded against), with a clear error per broken record and the rest imported.

Generic formats only (OpenAI and Anthropic chat logs as JSONL) and format detection; the
benchmark formats (tau2, tau-bench) live with their suites and are registered here lazily by
name (`register_format`). The helpers below are the kit for writing another format's reader.
"""

from ._common import (
    ForeignRecord,
    ImportedSession,
    ImportResult,
    RecordError,
    ReportedVerdict,
    SessionBuilder,
    domain_problem,
    first_problem,
    parse_time,
    repeated_call_ids,
    tool_call,
    trial_problem,
    unanswered_result,
)
from ._detect import FORMATS, detect_format, import_file
from ._formats import (
    FormatReader,
    TaskReader,
    format_names,
    format_reader,
    register_format,
    scenario_from_any_task,
)
from ._json import MAX_DEPTH, TOO_DEEP, load_json, load_salvaging, too_deep, without_bom
from ._jsonl import import_jsonl
from ._openai import read_openai_messages
from ._tools import known_tools

__all__ = [
    "FORMATS",
    "MAX_DEPTH",
    "TOO_DEEP",
    "ForeignRecord",
    "FormatReader",
    "ImportResult",
    "ImportedSession",
    "RecordError",
    "ReportedVerdict",
    "SessionBuilder",
    "TaskReader",
    "detect_format",
    "domain_problem",
    "first_problem",
    "format_names",
    "format_reader",
    "import_file",
    "import_jsonl",
    "known_tools",
    "load_json",
    "load_salvaging",
    "parse_time",
    "read_openai_messages",
    "register_format",
    "repeated_call_ids",
    "scenario_from_any_task",
    "too_deep",
    "tool_call",
    "trial_problem",
    "unanswered_result",
    "without_bom",
]
